#include "running/ThreadRunner.h"

namespace ts::gui {

void ThreadRunner::pause() {
    if (worker().pause())
        emit pausedChanged(true);
}

void ThreadRunner::resume() {
    if (worker().resume())
        emit pausedChanged(false);
}

} // namespace ts::gui
