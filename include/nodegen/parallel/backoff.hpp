#pragma once
// Waiting for another thread that holds something for a few hundred nanoseconds (a k-d tree leaf, a
// spin lock): spin briefly, then yield, because with
// more threads than cores the holder may be descheduled and pure spinning would burn its time slice.
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace nodegen {

class Backoff {
 public:
  void pause() {
    if (++spins_ < 64) {
#if defined(__x86_64__) || defined(__i386__)
      _mm_pause();
#endif
    } else {
      std::this_thread::yield();
    }
  }

 private:
  int spins_ = 0;
};

}  // namespace nodegen
