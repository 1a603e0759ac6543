#pragma once
// Process resource figures for the summary line and --report (getrusage: peak RSS and minor faults).
#include <sys/resource.h>

#include <cstddef>
#include <cstdint>

namespace nodegen::cli {

struct ResourceUsage {
  std::size_t peak_rss_bytes = 0;  // ru_maxrss (Linux reports KiB)
  std::int64_t minor_faults = 0;   // ru_minflt: first-touch page faults, the cost the storage backends differ in
};

inline ResourceUsage current_resource_usage() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return {static_cast<std::size_t>(u.ru_maxrss) * 1024, static_cast<std::int64_t>(u.ru_minflt)};
}

}  // namespace nodegen::cli
