#pragma once
// `nodegen run`'s options checked before any work: the thread count, the backend and the options only
// one backend takes, turned into the fill's options.
#include "nodegen/fill/discretization.hpp"
#include "run_command.hpp"

namespace nodegen::cli {

// Throws InputError naming the option (--threads, --backend, --prefault, --huge-pages) when it is out
// of range or does not apply.
FillOptions checked_fill_options(const RunArgs& args);

}  // namespace nodegen::cli
