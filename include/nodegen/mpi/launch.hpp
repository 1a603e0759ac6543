#pragma once
// Whether this process was started by an MPI launcher, read from the environment the launchers set,
// so a plain `nodegen run` starts no MPI runtime at all. Needs no MPI header.
#include <cstdlib>

namespace nodegen::mpi {

// Open MPI's mpirun/mpiexec (OMPI_COMM_WORLD_SIZE), PMIx-based launchers such as Slurm's srun with
// --mpi=pmix (PMIX_RANK), and MPICH/Hydra or PMI-1/2 launchers (PMI_SIZE).
inline bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

}  // namespace nodegen::mpi
