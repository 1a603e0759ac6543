#pragma once
// Whether stdout took everything printed to it (a full disk, a closed pipe): a summary or a stats
// report that silently went missing must not look like success. `nodegen run` asks before it commits
// its outputs, so a lost summary leaves none; main asks after every command.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "nodegen/geometry/input_error.hpp"

namespace nodegen::cli {

// Flushes stdout; throws InputError("stdout", "output", ...) when it could not be written.
inline void require_stdout_written() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    throw InputError("stdout", "output", std::string("cannot write the printed report: ") + std::strerror(errno));
}

}  // namespace nodegen::cli
