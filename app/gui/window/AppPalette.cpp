#include "window/AppPalette.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>

namespace ts::gui {

std::optional<PaletteMode> parsePaletteMode(const QString& name) {
    if (name == "dark")
        return PaletteMode::Dark;
    if (name == "light")
        return PaletteMode::Light;
    if (name == "system")
        return PaletteMode::System;
    return std::nullopt;
}

QString paletteModeNames() {
    return "dark, light or system";
}

void applyPaletteMode(PaletteMode mode) {
    if (mode == PaletteMode::System)
        return;
    if (QStyle* fusion = QStyleFactory::create("Fusion"))
        QApplication::setStyle(fusion); // the application owns the style
    QApplication::setPalette(mode == PaletteMode::Dark ? darkPalette()
                                                       : QApplication::style()->standardPalette());
}

QPalette darkPalette() {
    const QColor window(53, 53, 53), base(36, 36, 36), text(230, 230, 230), highlight(42, 130, 218);
    const QColor disabledText(127, 127, 127);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(48, 48, 48));
    p.setColor(QPalette::ToolTipBase, QColor(30, 30, 30));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(140, 140, 140));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(255, 90, 90));
    p.setColor(QPalette::Light, QColor(85, 85, 85));
    p.setColor(QPalette::Midlight, QColor(68, 68, 68));
    p.setColor(QPalette::Mid, QColor(100, 100, 100)); // frames and plot borders: visible on the base colour
    p.setColor(QPalette::Dark, QColor(30, 30, 30));
    p.setColor(QPalette::Shadow, QColor(15, 15, 15));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(90, 160, 240));
    p.setColor(QPalette::LinkVisited, QColor(170, 130, 230));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabledText);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(80, 80, 80));
    p.setColor(QPalette::Disabled, QPalette::HighlightedText, disabledText);
    return p;
}

bool isDark(const QPalette& palette) {
    return palette.color(QPalette::Window).lightness() < 128;
}

QColor readableText(const QColor& onLight, const QPalette& palette) {
    if (!isDark(palette))
        return onLight;
    const QColor hsl = onLight.toHsl();
    return QColor::fromHsl(hsl.hslHue(), hsl.hslSaturation(), 255 - hsl.lightness() / 2, hsl.alpha());
}

} // namespace ts::gui
