#include "memory_available.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace nodegen::solve {
namespace {

// The number after `key` in a "key value [kB]" file such as /proc/meminfo, times `unit`.
std::optional<double> field(const char* path, const std::string& key, double unit) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string name;
    double value = 0;
    if (words >> name >> value && name == key) return value * unit;
  }
  return std::nullopt;
}

// A file holding one number ("max" for none).
std::optional<double> number(const char* path) {
  std::ifstream in(path);
  double value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

}  // namespace

std::optional<double> memory_available_bytes() {
  std::optional<double> least = field("/proc/meminfo", "MemAvailable:", 1024.0);
  auto lower = [&](std::optional<double> v) {
    if (v) least = least ? std::min(*least, *v) : *v;
  };
  const auto max = number("/sys/fs/cgroup/memory.max"), current = number("/sys/fs/cgroup/memory.current");
  if (max && current) lower(std::max(0.0, *max - *current));
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const auto mapped = field("/proc/self/status", "VmSize:", 1024.0);
    lower(std::max(0.0, static_cast<double>(limit.rlim_cur) - mapped.value_or(0.0)));
  }
  return least;
}

}  // namespace nodegen::solve
