#pragma once
// What `nodegen run` does differently under an MPI launcher, in one place: every step that may fail on
// one rank is agreed by all of them, rank 0 prints and writes the report, the ranks check that they
// read the same inputs, share rank 0's temporaries for removal on a signal, and gather their figures.
// Without MPI (or with no session) each function is what a single process does.
#include <exception>
#include <filesystem>
#include <utility>
#include <vector>

#include "nodegen/input/domain_file.hpp"
#ifdef NODEGEN_WITH_MPI
#include "nodegen/mpi/agreement.hpp"
#include "nodegen/mpi/session.hpp"
#endif

namespace nodegen::mpi {
class Session;  // nodegen/mpi/session.hpp (MPI builds)
}

namespace nodegen::cli {

// Runs f on this process; under MPI every rank runs it and they agree on its outcome, so a step that
// fails on one rank (a file only it cannot read) ends all of them with that error instead of leaving
// the others waiting in the next collective call.
template <class F>
void on_every_rank([[maybe_unused]] const mpi::Session* session, F&& f) {
#ifdef NODEGEN_WITH_MPI
  if (session) return mpi::agreed(session->comm(), std::forward<F>(f));
#endif
  f();
}

// The first collective step of any command under several ranks, before the command runs: the ranks
// agree that they were started with one command line (mpirun's MPMD form can give each its own), that
// it is `nodegen run` (the only command that shares its work) or help, and on the outcome of its
// parse (`failure`: this rank's parse error as the InputError its line is). Throws the agreed error on
// every rank. Nothing on one rank: the caller reports `failure` itself.
void agree_on_command_line(const mpi::Session* session, int argc, char** argv, std::exception_ptr failure,
                           bool help, bool runs);

// This process's rank (0 without MPI): rank 0 prints, and writes the report.
int rank_of(const mpi::Session* session);
// How many ranks run (1 without MPI).
int rank_count(const mpi::Session* session);

// Ranks that read different domain files, meshes or options would fill different domains and meet
// in collectives of different sizes. Throws InputError naming `domain_path` when they differ.
void refuse_ranks_reading_different_inputs(const mpi::Session* session, const std::filesystem::path& domain_path,
                                           const DomainFile& domain);

// Rank 0's temporaries, on every rank (absolute paths), so that any rank's signal handler removes them.
void share_rank_zeros_temporaries(const mpi::Session* session, std::vector<std::filesystem::path>& temporaries);

// The slowest rank's value of each entry, on every rank (the file's metadata is the same on all).
void slowest(const mpi::Session* session, std::vector<double>& seconds);

// The figures of one rank's part of a run.
struct RankFigures {
  double nodes, fill_seconds, bytes_sent, nodes_sent, largest_phase_bytes, nodes_received, peak_rss_bytes;
};

// Every rank's figures, on rank 0 (one process: its own).
std::vector<RankFigures> gather_figures(const mpi::Session* session, const RankFigures& mine);

}  // namespace nodegen::cli
