#include "rank_parts.hpp"

#include <string>

#include "nodegen/geometry/input_error.hpp"

namespace nodegen::cli {

namespace fs = std::filesystem;

int rank_of([[maybe_unused]] const mpi::Session* session) {
#ifdef NODEGEN_WITH_MPI
  if (session) return session->rank();
#endif
  return 0;
}

void agree_on_command_line([[maybe_unused]] const mpi::Session* session, [[maybe_unused]] int argc,
                           [[maybe_unused]] char** argv, [[maybe_unused]] std::exception_ptr failure,
                           [[maybe_unused]] bool help, [[maybe_unused]] bool runs) {
#ifdef NODEGEN_WITH_MPI
  if (!session || session->size() == 1) return;
  std::string joined;  // NUL-separated: no argument holds one
  for (int i = 1; i < argc; ++i) joined.append(argv[i]).push_back('\0');
  if (!mpi::same_on_every_rank(session->comm(), joined))
    failure = std::make_exception_ptr(InputError("mpirun", "arguments",
                                                 "the ranks were started with different command lines: every rank "
                                                 "must run the same `nodegen run` command"));
  else if (!failure && !help && !runs)
    failure = std::make_exception_ptr(InputError(
        "mpirun", "ranks",
        std::to_string(session->size()) + " ranks were started, but only `nodegen run` runs on several: start one "
                                          "(mpirun -np 1) and give it the cores with --threads"));
  mpi::agree(session->comm(), failure);
#endif
}

int rank_count([[maybe_unused]] const mpi::Session* session) {
#ifdef NODEGEN_WITH_MPI
  if (session) return session->size();
#endif
  return 1;
}

// Every rank compares what fixes its nodes with rank 0's: the domain file's text, the seed and the node
// cap, and the size of each file the domain refers to (ranks launched with mpirun's MPMD form in other
// working folders may resolve the same relative path to different files).
void refuse_ranks_reading_different_inputs([[maybe_unused]] const mpi::Session* session,
                                           [[maybe_unused]] const fs::path& domain_path,
                                           [[maybe_unused]] const DomainFile& domain) {
#ifdef NODEGEN_WITH_MPI
  if (!session || session->size() == 1) return;
  std::string inputs = domain.text;
  inputs += '\0' + std::to_string(domain.fill.seed) + ' ' + std::to_string(domain.fill.max_nodes);
  for (const fs::path& in : domain.inputs) {
    std::error_code ec;
    inputs += ' ' + std::to_string(fs::file_size(in, ec));
  }
  if (!mpi::same_on_every_rank(session->comm(), inputs))
    throw InputError(domain_path.string(), "ranks",
                     "the ranks read different domain files, meshes or options: every rank must run the same ones "
                     "(relative paths are resolved in each rank's working folder)");
#endif
}

// Rank 0 creates the temporaries; every rank removes them on a signal. When one rank dies, mpirun ends
// the others with SIGTERM, so a rank 0 killed outright (SIGKILL, the out-of-memory killer) leaves
// nothing behind: another rank's handler removes its files. Absolute paths, for ranks started in other
// working folders; a rank that does not see them removes nothing.
void share_rank_zeros_temporaries([[maybe_unused]] const mpi::Session* session,
                                  [[maybe_unused]] std::vector<fs::path>& temporaries) {
#ifdef NODEGEN_WITH_MPI
  if (!session || session->size() == 1) return;
  std::string joined;  // NUL-separated: no path holds one
  for (const fs::path& p : temporaries) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(p, ec);
    joined.append((ec ? p : absolute).string()).push_back('\0');
  }
  mpi::broadcast(session->comm(), 0, joined);
  temporaries.clear();
  for (std::size_t at = 0, end; (end = joined.find('\0', at)) != std::string::npos; at = end + 1)
    temporaries.emplace_back(joined.substr(at, end - at));
#endif
}

void slowest([[maybe_unused]] const mpi::Session* session, [[maybe_unused]] std::vector<double>& seconds) {
#ifdef NODEGEN_WITH_MPI
  if (session) session->max(seconds);
#endif
}

std::vector<RankFigures> gather_figures([[maybe_unused]] const mpi::Session* session, const RankFigures& mine) {
  constexpr std::size_t kFields = sizeof(RankFigures) / sizeof(double);
  static_assert(sizeof(RankFigures) == kFields * sizeof(double));
#ifdef NODEGEN_WITH_MPI
  if (session) {
    const double* m = &mine.nodes;
    const std::vector<double> all = session->gather(std::vector<double>(m, m + kFields));
    std::vector<RankFigures> out(all.size() / kFields);
    for (std::size_t r = 0; r < out.size(); ++r) {
      const double* a = all.data() + kFields * r;
      out[r] = {a[0], a[1], a[2], a[3], a[4], a[5], a[6]};
    }
    return out;
  }
#endif
  return {mine};
}

}  // namespace nodegen::cli
