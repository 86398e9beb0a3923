#pragma once

#include "session/SessionStatus.h"
#include "space/SpaceMode.h"
#include "trial/MeasureStatus.h"

#include <QString>
#include <QtTest>

// QCOMPARE on a MeasureStatus (or any core enum with a ts::toString: SpaceMode, StopReason, SessionStatus) is
// unsafe: argument-dependent lookup finds ts::toString, whose static text QTest then frees with delete[] when
// the comparison fails. This compares and names both.
// Each argument is evaluated once.
#define COMPARE_STATUS(actual, expected)                                                                     \
    do {                                                                                                     \
        const auto statusActual = (actual);                                                                  \
        const auto statusExpected = (expected);                                                              \
        QVERIFY2(statusActual == statusExpected,                                                             \
                 qPrintable(QString("%1 is %2, expected %3")                                                 \
                                .arg(#actual, ts::toString(statusActual), ts::toString(statusExpected))));   \
    } while (false)
