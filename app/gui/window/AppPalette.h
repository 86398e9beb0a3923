#pragma once

#include <QPalette>
#include <QString>
#include <optional>

namespace ts::gui {

// The colours the workbench is drawn in: the desktop's (system), or Fusion's light or dark palette, chosen
// with `tunescope --palette`. Every chart reads its colours from the palette it is given, so all follow it.
enum class PaletteMode { System, Light, Dark };

// The mode named `name` ("dark", "light", "system"), or nothing for any other name.
std::optional<PaletteMode> parsePaletteMode(const QString& name);

// The names parsePaletteMode accepts, for messages ("dark, light or system").
QString paletteModeNames();

// Sets the application's style and palette: Fusion with a dark or light palette, or leaves the desktop's
// (system). Call after the QApplication exists and before the windows are made.
void applyPaletteMode(PaletteMode mode);

// Fusion with dark colours: dark backgrounds, light text, blue highlights.
QPalette darkPalette();

// True when the palette draws light text on dark backgrounds (its window colour is dark).
bool isDark(const QPalette& palette);

// A text colour picked for light backgrounds (a blue, a red), as it reads on the palette's: the same under
// a light palette, the same hue made light under a dark one.
QColor readableText(const QColor& onLight, const QPalette& palette);

} // namespace ts::gui
