#pragma once
// Where `nodegen run` writes, checked before any work: the default output path, the refusal to write
// over the files the run reads, and the default output folder, made on demand and removed again when
// the run fails.
#include <filesystem>
#include <optional>
#include <utility>

#include "nodegen/input/domain_file.hpp"

namespace nodegen::cli {

// The default output path for a domain file: output/<stem>.h5 relative to the current directory.
std::filesystem::path default_output_for(const std::filesystem::path& domain);

// Throws InputError when the output's file name cannot be named by the XDMF sidecar.
void refuse_unnameable_output(const std::filesystem::path& output);

// The run's outputs (the HDF5 file, its XDMF sidecar, the report) must not replace the domain file, a
// file it reads (a mesh, a polygon's point file) or each other: `-o square.json` would otherwise write
// HDF5 over the domain file it has just read. Throws InputError naming the output or the report.
void refuse_overwriting_inputs(const std::filesystem::path& domain_path, const DomainFile& domain,
                               const std::filesystem::path& output,
                               const std::optional<std::filesystem::path>& report);

// A folder made on demand and removed again (if still empty) at destruction unless keep() was called,
// so a failed run leaves nothing behind.
class CreatedDirectory {
 public:
  CreatedDirectory() = default;
  explicit CreatedDirectory(const std::filesystem::path& dir);
  CreatedDirectory(CreatedDirectory&& o) noexcept : dir_(std::exchange(o.dir_, {})) {}
  CreatedDirectory& operator=(CreatedDirectory&& o) noexcept;
  ~CreatedDirectory();
  void keep() { dir_.clear(); }

 private:
  std::filesystem::path dir_;
};

}  // namespace nodegen::cli
