#pragma once

#include <coroutine>
#include <exception>
#include <utility>

namespace ts {

// The coroutine a MemoizedSearch runs its algorithm in: created suspended, resumed by the strategy,
// suspended whenever the algorithm waits for configs to be measured. Owns its frame; move-only.
class SearchCoroutine {
public:
    struct promise_type {
        SearchCoroutine get_return_object() {
            return SearchCoroutine(std::coroutine_handle<promise_type>::from_promise(*this));
        }
        std::suspend_always initial_suspend() noexcept { return {}; }
        std::suspend_always final_suspend() noexcept { return {}; }
        void return_void() {}
        void unhandled_exception() { error = std::current_exception(); }
        std::exception_ptr error;
    };

    SearchCoroutine() = default;
    SearchCoroutine(SearchCoroutine&& other) noexcept : m_handle(std::exchange(other.m_handle, {})) {}
    SearchCoroutine& operator=(SearchCoroutine&& other) noexcept {
        if (this != &other) {
            destroy();
            m_handle = std::exchange(other.m_handle, {});
        }
        return *this;
    }
    SearchCoroutine(const SearchCoroutine&) = delete;
    SearchCoroutine& operator=(const SearchCoroutine&) = delete;
    ~SearchCoroutine() { destroy(); }

    bool done() const { return !m_handle || m_handle.done(); }

    // Runs the algorithm until its next suspension or its end; rethrows what it threw.
    void resume() {
        if (done())
            return;
        m_handle.resume();
        if (m_handle.done() && m_handle.promise().error)
            std::rethrow_exception(std::exchange(m_handle.promise().error, nullptr));
    }

private:
    explicit SearchCoroutine(std::coroutine_handle<promise_type> handle) : m_handle(handle) {}
    void destroy() {
        if (m_handle)
            m_handle.destroy();
        m_handle = {};
    }

    std::coroutine_handle<promise_type> m_handle;
};

} // namespace ts
