#include "nodegen/mpi/parallel_output.hpp"

#include <hdf5.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "nodegen/io/hdf5_handle.hpp"
#include "nodegen/io/node_writer.hpp"
#include "nodegen/io/output_error.hpp"
#include "nodegen/io/layout.hpp"
#include "nodegen/mpi/agreement.hpp"

namespace nodegen::mpi {

namespace fs = std::filesystem;
using io::detail::H5Handle;

namespace {

// The writers of one file are the ranks of a communicator: steps agreed with agree(), writes collective.
class RankTeam : public io::detail::WriterTeam {
 public:
  explicit RankTeam(MPI_Comm comm) : comm_(comm), transfer_(H5Pcreate(H5P_DATASET_XFER), H5Pclose) {
    std::exception_ptr failure;
    if (!transfer_ || H5Pset_dxpl_mpio(transfer_.get(), H5FD_MPIO_COLLECTIVE) < 0)
      failure = std::make_exception_ptr(std::runtime_error("HDF5: cannot set collective transfers"));
    mpi::agree(comm_, failure);
  }
  using WriterTeam::agree;
  void agree(std::exception_ptr failure) const override { mpi::agree(comm_, failure); }
  std::size_t max(std::size_t value) const override {
    std::uint64_t v = value;
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_UINT64_T, MPI_MAX, comm_);
    return static_cast<std::size_t>(v);
  }
  hid_t transfer() const override { return transfer_.get(); }

 private:
  MPI_Comm comm_;
  H5Handle transfer_;
};

void broadcast_path(MPI_Comm comm, fs::path& path) {
  std::string s = path.string();
  broadcast(comm, 0, s);
  path = s;
}

// Rank 0 gives the file its blocks before any rank writes: up to `bytes`, which the writes stay
// within. Parallel HDF5 (1.10) cannot fail a write for want of space cleanly: a rank whose metadata
// write fails leaves the collectives that the others enter, and the close hangs, or fails and leaves
// the library to crash at MPI_Finalize. With the space held, a full disk (or a quota or file-size
// limit) is refused here, before the first write, on every rank alike. The file's length grows to
// `bytes`; rank 0's own close after the fingerprint cuts it back to HDF5's end of data. On a file system
// without fallocate (NFS before v4.2, ext2/3 files, some parallel ones) glibc's posix_fallocate reserves
// by writing a zero byte into each block the file does not have yet, which a full disk refuses alike;
// no other rank writes before this returns, so those writes race with nothing. Only where even that is
// unsupported (EOPNOTSUPP, ENOSYS) does the write go ahead without the reservation.
void reserve_space(const fs::path& file, std::uint64_t bytes, const fs::path& shown) {
  const int fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC);  // read too: glibc's fallback reads each block first
  if (fd < 0) io::detail::throw_io_error(shown, "output", std::string("cannot reopen the file: ") + std::strerror(errno));
  int error = 0;
  while ((error = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes))) == EINTR) {
  }
  ::close(fd);
  if (error == 0 || error == EOPNOTSUPP || error == ENOSYS) return;
  const std::string size = std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
  if (error == ENOSPC || error == EDQUOT || error == EFBIG)
    io::detail::throw_io_error(shown, "output", "no room for the file: it needs up to " + size + " (" +
                                                    std::strerror(error) + ")");
  io::detail::throw_io_error(shown, "output", "cannot reserve " + size + " for the file: " + std::strerror(error));
}

}  // namespace

ParallelOutputFiles::ParallelOutputFiles(MPI_Comm comm, const fs::path& h5_path) : comm_(comm), shown_(h5_path) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  agreed(comm_, [&] {
    if (rank_ == 0) {
      files_.emplace(h5_path);
      // Absolute: ranks started in other working folders open rank 0's file, not one of their own.
      temp_ = fs::absolute(files_->h5_temp_path());
      shown_ = files_->h5_path();
    }
  });
  broadcast_path(comm_, temp_);
  broadcast_path(comm_, shown_);
  agreed(comm_, [&] {
    std::error_code ec;
    if (!fs::exists(temp_, ec))
      io::detail::throw_io_error(shown_, "output", "rank " + std::to_string(rank_) + " does not see the file rank 0 made in " +
                                                       temp_.parent_path().string() +
                                                       ": the output folder must be on a file system every rank sees");
  });
}

std::optional<fs::path> ParallelOutputFiles::h5_temp_path() const {
  return files_ ? std::optional<fs::path>(files_->h5_temp_path()) : std::nullopt;
}
std::optional<fs::path> ParallelOutputFiles::xdmf_temp_path() const {
  return files_ ? std::optional<fs::path>(files_->xdmf_temp_path()) : std::nullopt;
}

std::string ParallelOutputFiles::write(const io::NodeArraysView& local, const io::FileSlabs& slabs,
                                       const io::RunMetadata& metadata) {
  io::detail::H5QuietErrors quiet;
  const RankTeam team(comm_);
  agreed(comm_, [&] { io::detail::NodeWriter::check_consistent(local, slabs, io::detail::WriterTeam(), shown_); });
  {
    H5Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    const bool ok = access.valid() && H5Pset_fapl_mpio(access.get(), comm_, MPI_INFO_NULL) >= 0;
    team.agree(shown_, ok ? "" : "HDF5 cannot open files through MPI-IO");
    H5Handle file(H5Fcreate(temp_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose);
    team.agree(shown_, file.valid() ? "" : "cannot create an HDF5 file there through MPI-IO (is the folder on a "
                                           "file system every rank sees?)");
    io::RunMetadata with_ranks = metadata;
    with_ranks.emplace_back(io::layout::ranks_attribute, std::int64_t{size_});
    // The fingerprint attribute rank 0 adds below is 64 characters: within the bound's slack.
    agreed(comm_, [&] {
      if (rank_ == 0) reserve_space(temp_, io::detail::NodeWriter::file_bytes_bound(slabs, local.dim, with_ranks), shown_);
    });
    io::detail::NodeWriter w(std::move(file), slabs, team, shown_, nullptr);
    w.write_domain(local, with_ranks);
    const std::vector<std::int32_t> partition(local.node_count(), rank_);
    w.write_node_int32(io::layout::partition, partition);
    w.write_display_arrays(local);
    w.close();
  }
  // The fingerprint hashes whole arrays in file order, which no rank holds: rank 0 reads them back.
  std::string hex(64, '\0');
  agreed(comm_, [&] {
    if (rank_ != 0) return;
    const io::detail::WriterTeam alone;
    H5Handle file(H5Fopen(temp_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    if (!file) io::detail::throw_io_error(shown_, "output", "cannot reopen the written file for its fingerprint");
    hex = io::detail::stored_nodes_sha256(file.get(), shown_);
    io::detail::NodeWriter w(std::move(file), io::FileSlabs{}, alone, shown_, nullptr);
    w.write_domain_attribute(io::layout::fingerprint_attribute, hex);
    w.close();
    files_->write_sidecar(slabs.node_total);
  });
  MPI_Bcast(hex.data(), static_cast<int>(hex.size()), MPI_CHAR, 0, comm_);
  return hex;
}

void ParallelOutputFiles::commit(const std::vector<io::PendingFile*>& also, io::CommitWatch* watch) {
  agreed(comm_, [&] {
    if (files_) files_->commit(also, watch);
  });
}

}  // namespace nodegen::mpi
