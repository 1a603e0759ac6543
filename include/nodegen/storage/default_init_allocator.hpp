#pragma once
// std::allocator, except that a value-initialising construct() default-initialises: resize(n) of a
// vector of ints leaves the new elements unwritten and their pages untouched, so the code that fills
// them next (the fill's output arrays: on every thread of the run) is also what first touches them.
// Without it, resize zero-fills the output's types and bmap on one thread, a serial step in a run that
// is otherwise parallel (bench/RESULTS.md, Fill).
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace nodegen {

template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  using std::allocator<T>::allocator;
  // Spelled out: before C++20 std::allocator's own rebind would be inherited and yield std::allocator.
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

}  // namespace nodegen
