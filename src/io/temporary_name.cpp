#include "nodegen/io/temporary_name.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <regex>

namespace nodegen::io {

namespace fs = std::filesystem;

namespace {

// Stands for a boot id that cannot be read (no /proc): a temporary with it is judged by its pid only
// when this run cannot read its own either.
constexpr const char* kUnknownBoot = "00000000";

std::string hex8(std::uint32_t value) {
  char text[9];
  std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(value));
  return text;
}

// The first 8 hex digits of this boot's id (a random UUID the kernel makes at every boot).
const std::string& this_boot() {
  static const std::string boot = [] {
    std::string id;
    std::ifstream("/proc/sys/kernel/random/boot_id") >> id;
    id = id.substr(0, 8);
    const bool hex = id.size() == 8 && std::all_of(id.begin(), id.end(), [](char c) {
                       return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                     });
    return hex ? id : std::string(kUnknownBoot);
  }();
  return boot;
}

// The machine and the pid namespace this process sees pids in: FNV-1a of the host name and the
// namespace's inode. The host's own namespace keeps its inode across boots, so a restarted machine
// keeps its tag; a container's namespace gets a new one when it starts.
const std::string& this_host() {
  static const std::string host = [] {
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    struct stat ns {};
    const auto inode = ::stat("/proc/self/ns/pid", &ns) == 0 ? static_cast<unsigned long long>(ns.st_ino) : 0ULL;
    const std::string key = std::string(name) + ':' + std::to_string(inode);
    std::uint32_t hash = 2166136261u;
    for (const unsigned char c : key) hash = (hash ^ c) * 16777619u;
    return hex8(hash);
  }();
  return host;
}

// Whether process `pid` has ended but not been reaped (a zombie: its parent has not waited for it,
// as a container's first process often never does). It writes nothing any more.
bool is_zombie(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  const std::size_t name_end = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (name_end == std::string::npos || name_end + 2 >= stat.size()) return false;
  const char state = stat[name_end + 2];
  return state == 'Z' || state == 'X';
}

bool writer_is_gone(long long pid, const std::string& boot, const std::string& host) {
  if (host != this_host() || pid > INT_MAX) return false;
  if (boot != this_boot()) return boot != kUnknownBoot && this_boot() != kUnknownBoot;
  const auto id = static_cast<pid_t>(pid);
  if (::kill(id, 0) != 0) return errno == ESRCH;
  return is_zombie(id);
}

}  // namespace

std::string temporary_template(const fs::path& dir, const std::string& final_name) {
  // Built piecewise: GCC 12 flags "." + string with -Wrestrict.
  std::string tail(".tmp-");
  tail.append(std::to_string(::getpid())).append("-").append(this_boot()).append("-").append(this_host());
  tail.append("-XXXXXX");
  // A final name of up to 255 bytes is one the file system takes; the hidden name adds "." and the
  // tail, so the final name is cut to leave them room.
  constexpr std::size_t kMaxName = 255;
  std::string hidden(1, '.');
  hidden.append(final_name, 0, std::min(final_name.size(), kMaxName - 1 - tail.size())).append(tail);
  return (dir / hidden).string();
}

bool names_a_dead_writers_temporary(std::string_view name) {
  static const std::regex pattern(R"(^\..+\.tmp-([1-9][0-9]{0,9})-([0-9a-f]{8})-([0-9a-f]{8})-[A-Za-z0-9]{6}$)");
  std::match_results<std::string_view::const_iterator> parts;
  if (!std::regex_match(name.begin(), name.end(), parts, pattern)) return false;
  return writer_is_gone(std::stoll(parts[1].str()), parts[2].str(), parts[3].str());
}

std::vector<fs::path> remove_dead_temporaries(const fs::path& dir) {
  const fs::path folder = dir.empty() ? fs::path(".") : dir;
  std::vector<fs::path> dead;
  std::error_code ec;
  for (fs::directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // Only a regular file of that name, not a link to another file nor a folder.
    std::error_code kind;
    if (names_a_dead_writers_temporary(name) && it->symlink_status(kind).type() == fs::file_type::regular)
      dead.push_back(dir / name);
  }
  std::sort(dead.begin(), dead.end());  // in name order, not the folder's
  std::vector<fs::path> removed;
  for (const fs::path& path : dead)
    if (::unlink(path.c_str()) == 0) removed.push_back(path);
  return removed;
}

}  // namespace nodegen::io
