#include "run_paths.hpp"

#include <string>
#include <vector>

#include "nodegen/geometry/input_error.hpp"
#include "nodegen/io/xdmf_writer.hpp"

namespace nodegen::cli {

namespace fs = std::filesystem;

fs::path default_output_for(const fs::path& domain) {
  return fs::path("output") / domain.filename().replace_extension(".h5");
}

void refuse_unnameable_output(const fs::path& output) {
  // The sidecar names the HDF5 file, and a name XML cannot hold would make it unreadable.
  if (const std::string why = io::xdmf_unnameable_reason(output.filename().string()); !why.empty())
    throw InputError(output.string(), "output", "its file name " + why + ", and the XDMF sidecar names it; give another -o");
}

void refuse_overwriting_inputs(const fs::path& domain_path, const DomainFile& domain, const fs::path& output,
                               const std::optional<fs::path>& report_path) {
  // Each path resolved once (symbolic links, "..", the current folder); one that cannot be resolved
  // matches nothing. Made absolute first: weakly_canonical leaves a relative path none of whose parts
  // exists as it is, so "o.h5" and "./o.h5" (a report over the output) compared unequal. A link whose
  // target does not exist yet is followed too: weakly_canonical stops at it, and a report through a
  // link to the output not yet written (`ln -s o.h5 r.json; --report r.json`) overwrote the output.
  auto canonical = [](const fs::path& p) {
    std::error_code ec;
    fs::path c = fs::absolute(p, ec);
    for (int hop = 0; !ec && hop < 40; ++hop) {
      std::error_code missing;  // a path that does not exist is no link: not an error here
      if (fs::symlink_status(c, missing).type() != fs::file_type::symlink) break;
      const fs::path target = fs::read_symlink(c, ec);
      c = target.is_absolute() ? target : c.parent_path() / target;
    }
    if (!ec) c = fs::weakly_canonical(c, ec);
    return ec ? fs::path() : c;
  };
  // One file under two names too (a hard link: the same device and inode), where both exist.
  auto same = [](const fs::path& a, const fs::path& b) {
    std::error_code ec;
    return !a.empty() && !b.empty() && (a == b || (fs::equivalent(a, b, ec) && !ec));
  };
  // The sidecar goes beside the file the output resolves to (through a symbolic link), as OutputFiles puts it.
  const fs::path out = canonical(output), sidecar = canonical(io::xdmf_path_for(out.empty() ? output : out));
  const fs::path report = report_path ? canonical(*report_path) : fs::path();
  std::vector<fs::path> inputs = domain.inputs;
  inputs.insert(inputs.begin(), domain_path);
  for (const fs::path& in : inputs) {
    const std::string what = in == domain_path ? "the domain file " : "a file the domain reads, ";
    const fs::path c = canonical(in);
    if (same(c, out) || same(c, sidecar))
      throw InputError(output.string(), "output", "would overwrite " + what + in.string() + "; give another -o");
    if (same(c, report))
      throw InputError(report_path->string(), "report", "would overwrite " + what + in.string() + "; give another path");
  }
  if (same(report, out) || same(report, sidecar))
    throw InputError(report_path->string(), "report", "would overwrite the run's output; give another path");
}

CreatedDirectory::CreatedDirectory(const fs::path& dir) {
  std::error_code ec;
  if (dir.empty() || fs::exists(dir, ec)) return;
  if (fs::create_directories(dir, ec)) dir_ = dir;
  else if (ec)  // the reason, where the output's own check would only find the folder missing
    throw InputError(dir.string(), "output", "cannot create the output folder: " + ec.message());
}

CreatedDirectory& CreatedDirectory::operator=(CreatedDirectory&& o) noexcept {
  dir_ = std::exchange(o.dir_, {});
  return *this;
}

CreatedDirectory::~CreatedDirectory() {
  std::error_code ec;
  if (!dir_.empty()) fs::remove(dir_, ec);  // removes only an empty directory
}

}  // namespace nodegen::cli
