#pragma once

#include "trial/MeasureStatus.h"

#include <QString>
#include <QtTest>

// QCOMPARE on a MeasureStatus is unsafe: argument-dependent lookup finds ts::toString(MeasureStatus), whose
// static text QTest then frees with delete[] when the comparison fails. This compares and names both.
#define COMPARE_STATUS(actual, expected)                                                                     \
    QVERIFY2(                                                                                                \
        (actual) == (expected),                                                                              \
        qPrintable(                                                                                          \
            QString("%1 is %2, expected %3").arg(#actual, ts::toString(actual), ts::toString(expected))))
