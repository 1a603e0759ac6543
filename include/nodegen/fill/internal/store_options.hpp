#pragma once
// The options of a backend family's store and tree arena, from the fill's options: only the VM store
// has any (prefaulting its pages, transparent huge pages); the others take their defaults.
#include <type_traits>

#include "nodegen/fill/discretization.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen::fill_detail {

template <class Options>
Options store_options(const FillOptions& options) {
  Options o{};
  if constexpr (std::is_same_v<Options, VmStoreOptions>) {
    o.prefault = options.prefault;
    o.huge_pages = options.huge_pages;
  }
  return o;
}

}  // namespace nodegen::fill_detail
