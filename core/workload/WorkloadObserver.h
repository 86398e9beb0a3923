#pragma once

#include "trial/Trial.h"
#include "workload/WorkloadProgress.h"

#include <cstdint>
#include <string>

namespace ts {

enum class WorkloadStop { Budget, Done, Cancelled };

const char* toString(WorkloadStop stop);

// Callbacks from a running workload, on its thread, in order; an observer that feeds a GUI hands the data
// to its own thread and returns quickly.
class WorkloadObserver {
public:
    virtual ~WorkloadObserver() = default;
    // A task's session was recorded (or reopened): its id, for views that show the task's session.
    virtual void taskOpened(std::size_t task, std::int64_t session) { (void)task, (void)session; }
    virtual void trialFinished(std::size_t task, const Trial& trial) { (void)task, (void)trial; }
    // A task was given up: it does not build, its space is empty at its size, or none of its configs ran.
    virtual void taskFailed(std::size_t task, const std::string& error) { (void)task, (void)error; }
    virtual void roundFinished(const WorkloadProgress& progress) { (void)progress; }
    virtual void finished(WorkloadStop stop) { (void)stop; }
};

} // namespace ts
