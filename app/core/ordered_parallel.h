// Items made on several threads, used in order on the calling one: a stack's frames decoded by several decoder
// children at once and handed to the transform one by one, in frame order, with a bounded number in memory.
#pragma once

#include <algorithm>
#include <climits>
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace specview {

// Items begin .. end - 1 in chunks of `chunk`, dealt in order to `streams` threads, each running
// produce(a, b, emit) for its chunk [a, b); emit(i, item) hands item i over and returns false once the run has
// stopped (produce should then return). consume(item) gets the items in index order on the calling thread and
// returns false to stop. At most about `ahead` items (>= chunk, >= 1) wait made ahead of the consumer. A chunk
// that throws, or returns without emitting all its items (`missing(i)` says why item i did not come), fails
// at its first missing item: the items before it are consumed, then that exception is thrown. Returns how
// many items were consumed.
template <class T>
int ordered_parallel(int begin, int end, int streams, int ahead, int chunk,
                     const std::function<void(int, int, const std::function<bool(int, T)>&)>& produce,
                     const std::function<bool(T)>& consume, const std::function<std::exception_ptr(int)>& missing) {
    if (end <= begin) return 0;
    chunk = std::max(1, chunk);
    ahead = std::max({1, ahead, chunk});
    const int chunks = (end - begin + chunk - 1) / chunk;
    streams = std::max(1, std::min(streams, chunks));
    struct State {
        std::mutex mu;
        std::condition_variable cv;
        std::map<int, T> ready;  // made, waiting for their turn
        int next = 0;            // the item consume gets next
        int next_chunk = 0;      // the chunk dealt next
        bool stop = false;
        int error_at = INT_MAX;  // the earliest item that will not come, and why
        std::exception_ptr error;
    } st;
    st.next = begin;
    auto fail_at = [&st](int i, std::exception_ptr e) {  // (with st.mu held)
        if (i < st.error_at) {
            st.error_at = i;
            st.error = e;
        }
        st.cv.notify_all();
    };
    auto worker = [&] {
        for (;;) {
            int a = 0, b = 0;
            {
                std::unique_lock<std::mutex> lock(st.mu);
                if (st.stop || st.next_chunk >= chunks) return;
                a = begin + st.next_chunk * chunk;
                b = std::min(end, a + chunk);
                ++st.next_chunk;
                st.cv.wait(lock, [&] { return st.stop || a < st.next + ahead; });
                if (st.stop) return;
            }
            int expected = a;  // the chunk's first item not yet emitted
            try {
                produce(a, b, [&](int i, T item) {
                    std::unique_lock<std::mutex> lock(st.mu);
                    st.cv.wait(lock, [&] { return st.stop || i < st.next + ahead; });
                    if (st.stop) return false;
                    expected = std::max(expected, i + 1);
                    st.ready.emplace(i, std::move(item));
                    st.cv.notify_all();
                    return true;
                });
                std::lock_guard<std::mutex> lock(st.mu);
                if (!st.stop && expected < b) fail_at(expected, missing(expected));
            } catch (...) {
                std::lock_guard<std::mutex> lock(st.mu);
                fail_at(expected, std::current_exception());
                return;
            }
        }
    };
    std::vector<std::thread> threads;
    threads.reserve(std::size_t(streams));
    for (int k = 0; k < streams; ++k) threads.emplace_back(worker);
    int consumed = 0;
    std::exception_ptr error;
    for (;;) {
        T item;
        {
            std::unique_lock<std::mutex> lock(st.mu);
            st.cv.wait(lock, [&] { return st.ready.count(st.next) || st.next >= end || st.next >= st.error_at; });
            if (st.next >= end || !st.ready.count(st.next)) {
                if (st.next < end) error = st.error;  // the earliest failure is the next item
                st.stop = true;
                st.cv.notify_all();
                break;
            }
            auto node = st.ready.extract(st.next);
            item = std::move(node.mapped());
            ++st.next;
            st.cv.notify_all();
        }
        ++consumed;
        bool go_on = false;
        try {
            go_on = consume(std::move(item));
        } catch (...) {
            error = std::current_exception();
        }
        if (!go_on) {
            std::lock_guard<std::mutex> lock(st.mu);
            st.stop = true;
            st.cv.notify_all();
            break;
        }
    }
    for (auto& t : threads) t.join();
    if (error) std::rethrow_exception(error);
    return consumed;
}

}  // namespace specview
