#pragma once
// Arena<S>: a storage backend (any NodeStore) seen by the k-d tree. Every element visit goes through
// with(i, f): on backends with stable addresses (those that expose data(), like VmStore) it is a plain
// indexed reference through a base pointer cached at construction; on the others (vector + lock) it is
// the store's access(i, f), whose reference is only valid inside the call. The tree never keeps a
// reference past with(), so both paths are correct and the fast one costs nothing extra.
#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "nodegen/storage/store_concept.hpp"

namespace nodegen::spatial_detail {

template <class S>
concept StableAddressStore = requires(S& s) {
  { s.data() } -> std::same_as<typename S::value_type*>;
};

// The k-d tree takes one Options value for its two arenas (nodes and buckets). For backends whose
// Options type depends on the element type (LockedVectorStore<T>::Options), the value is converted
// when it can be and default-constructed otherwise (those Options are empty).
template <class To, class From>
To convert_options(const From& from) {
  if constexpr (std::is_convertible_v<const From&, To>) {
    return from;
  } else {
    return To{};
  }
}

template <class S>
class Arena {
 public:
  using value_type = typename S::value_type;
  static constexpr bool kStable = StableAddressStore<S>;

  template <class Options>
  Arena(std::size_t capacity, const Options& options)
      : store_(capacity, convert_options<typename S::Options>(options)) {
    if constexpr (kStable) base_ = store_.data();
  }

  // Claims n consecutive fresh slots (throws StoreFull when the capacity is exhausted).
  std::size_t claim(std::size_t n) { return store_.claim(n); }

  template <class F>
  void with(std::size_t i, F&& f) {
    if constexpr (kStable) {
      f(base_[i]);
    } else {
      store_.access(i, [&](value_type& element) { f(element); });
    }
  }

  // The first element, on stores with stable addresses (kStable): element i is base()[i].
  value_type* base() const { return base_; }

  std::size_t size() const { return store_.size(); }
  std::size_t capacity() const { return store_.capacity(); }
  std::size_t bytes_resident() const { return store_.bytes_resident(); }

 private:
  S store_;
  value_type* base_ = nullptr;
};

}  // namespace nodegen::spatial_detail
