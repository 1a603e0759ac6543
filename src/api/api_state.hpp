#pragma once
// What the in-process API's handles (nodegen.hpp) hold: a loaded domain file, and the nodes of one
// fill with the arrays the command computes while writing (h) or never (supports).
#include <cstdint>
#include <string>
#include <vector>

#include "nodegen/fill/discretization.hpp"
#include "nodegen/geometry/input_error.hpp"
#include "nodegen/geometry/spacing_fault.hpp"
#include "nodegen/input/domain_file.hpp"
#include "nodegen/io/node_arrays.hpp"
#include "nodegen/nodegen.hpp"
#include "nodegen/storage/store_concept.hpp"

namespace nodegen::api_detail {

struct LoadedDomain {
  DomainFile file;
};

template <int D>
struct FilledNodes {
  Discretization<D> nodes;
  std::vector<double> h;
  std::vector<std::string> part_names;
  int support_size = 0;
  std::vector<std::int64_t> supports;  // support_size per node
  double spacing_factor = 1.0;
  io::RunMetadata metadata;  // the output's attributes of /domain

  // The arrays as the writer and the fingerprint take them (h served from `h`).
  io::NodeArraysView view() const;
};

// Runs `work`, turning the library's errors about the input (InputError, StoreFull, a
// SpacingFault) into nodegen::Error with the same line; anything else passes as it is.
template <class Work>
auto translating_errors(Work&& work) -> decltype(work()) {
  try {
    return work();
  } catch (const InputError& e) {
    throw Error(e.what());
  } catch (const StoreFull& e) {
    throw Error(e.what());
  } catch (const SpacingFault& e) {
    throw Error(e.what());
  } catch (const FillStopped& e) {
    throw Stopped(e.what());
  }
}

}  // namespace nodegen::api_detail
