#pragma once
// The contract every storage backend satisfies, so the k-d tree arena and the fill's node store are
// templated on it (no virtual call in the hot loop).
//
// A store is an append-only array of trivially copyable elements addressed by a 64-bit handle (the
// index). Many threads may claim and write concurrently:
//   claim(n)        reserves n consecutive fresh slots and returns the first index. Thread-safe.
//                   Throws nodegen::StoreFull when the capacity would be exceeded (never UB).
//   access(i, f)    calls f(T&) with a reference valid for the duration of the call. For backends with
//                   stable addresses this is a plain reference; for vector + lock it runs under the
//                   shared lock, so growth cannot move the element mid-access. Distinct threads may
//                   access distinct elements concurrently; atomics inside elements go via std::atomic_ref.
//   get(i) / set(i, v)  copy an element out / in (shorthands for access).
//   size()          slots claimed so far (a claimed slot may not be written yet: publication of
//                   written elements is the user's job, e.g. a release-stored count).
//   capacity()      the most slots the store can ever hold.
//   bytes_resident()  memory the store holds for elements now (committed pages, chunks, vector capacity).
#include <concepts>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace nodegen {

// Thrown when a store cannot take more elements: a full reservation or the configured cap.
class StoreFull : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <class S>
concept NodeStore = requires(S& s, const S& cs, std::size_t i, std::size_t n,
                             const typename S::value_type& v) {
  typename S::value_type;
  requires std::is_trivially_copyable_v<typename S::value_type>;
  { s.claim(n) } -> std::same_as<std::size_t>;
  { s.get(i) } -> std::same_as<typename S::value_type>;
  { s.set(i, v) } -> std::same_as<void>;
  { s.access(i, [](typename S::value_type&) {}) };
  { cs.size() } -> std::same_as<std::size_t>;
  { cs.capacity() } -> std::same_as<std::size_t>;
  { cs.bytes_resident() } -> std::same_as<std::size_t>;
};

// A backend family: a class template over the element type, constructible from a capacity in
// elements (`Store<T> s(capacity)`). The k-d tree and the fill take one of these as a template
// template parameter so they can make stores for their own element types.
template <template <class> class Store>
concept StoreFamily = NodeStore<Store<std::size_t>>;

}  // namespace nodegen
