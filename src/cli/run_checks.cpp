#include "run_checks.hpp"

#include <stdexcept>
#include <string>
#include <thread>

#include "nodegen/fill/backend.hpp"
#include "nodegen/geometry/input_error.hpp"

namespace nodegen::cli {

FillOptions checked_fill_options(const RunArgs& args) {
  if (args.threads < 1) throw InputError("--threads", "value", "must be at least 1");
  if (args.threads > kMaxThreads)
    throw InputError("--threads", "value", "must be at most " + std::to_string(kMaxThreads) + " (this machine has " +
                                               std::to_string(std::thread::hardware_concurrency()) + " hardware threads)");
  FillOptions options;
  try {
    options.backend = parse_backend(args.backend);
  } catch (const std::invalid_argument& e) {
    throw InputError("--backend", "value", e.what());
  }
  // Only the VM store has these; taken silently by another backend they would be recorded as used.
  if (options.backend != Backend::vm && (args.prefault || args.huge_pages))
    throw InputError(args.prefault ? "--prefault" : "--huge-pages", "backend",
                     std::string("applies to the vm backend only, not ") + std::string(backend_name(options.backend)));
  options.threads = args.threads;
  options.boundary_only = args.boundary_only;
  options.prefault = args.prefault;
  options.huge_pages = args.huge_pages;
  return options;
}

}  // namespace nodegen::cli
