#pragma once
// Names in our HDF5 files, shared by the writer, the reader and the XDMF sidecar.
//
// /domain is exactly what Medusa's DomainDiscretization<vec>::load(hdf, "domain") reads. Medusa's HDF
// class stores a 2D array value[row][col] (rows = nodes) as a dataset of dims {cols, rows}, i.e. our
// pos dataset has dims {d, N} and its row k holds coordinate k of every node (all x, then all y, ...).
//   /domain/pos      float64 {d, N}
//   /domain/types    int32 {N}       interior > 0, boundary = -boundary_id
//   /domain/bmap     int32 {N}       -1 for interior, else the node's row in normals
//   /domain/normals  float64 {d, Nb} outward unit normals, same transposed layout as pos
//   /domain/h        float64 {N}     the spacing h evaluated at each node
//   /domain attrs    N (int32), the run metadata (domain file text, seed, threads, ...) and
//                    nodes_sha256, the fingerprint of the five arrays above (io/fingerprint.hpp)
// A run asked for supports (--supports K, the API's supports) also has
//   /domain/supports int32 {N, K}    row i: the K nearest nodes of node i (rows), itself first
// A file written by several MPI ranks together (src/mpi) also has
//   /domain/partition int32 {N}     the rank that held each node
//   /domain attr      ranks (int64), the number of ranks
// /paraview holds the display copies the XDMF sidecar points at. ParaView 5.11's legacy "XDMF Reader"
// can read coordinates straight out of /domain/pos through HyperSlab items, but its Xdmf3 readers
// (Xdmf3ReaderS/T, offered first in the GUI) read no points from a HyperSlab geometry and crash on a
// Polyvertex topology without connectivity (checked with pvbatch), so the sidecar uses plain arrays:
//   /paraview/points       float32 {N, 3}  positions (z = 0 in 2D); exact values are in /domain/pos
//   /paraview/connectivity int32 {N}       0..N-1, one Polyvertex cell per node
//   /paraview/normal       float32 {N, 3}  per-node normal, zero for interior nodes
namespace nodegen::io::layout {

inline constexpr const char* domain_group = "/domain";
inline constexpr const char* pos = "/domain/pos";
inline constexpr const char* types = "/domain/types";
inline constexpr const char* bmap = "/domain/bmap";
inline constexpr const char* normals = "/domain/normals";
inline constexpr const char* h = "/domain/h";
inline constexpr const char* partition = "/domain/partition";
inline constexpr const char* supports = "/domain/supports";
inline constexpr const char* ranks_attribute = "ranks";
inline constexpr const char* count_attribute = "N";
inline constexpr const char* fingerprint_attribute = "nodes_sha256";  // io/fingerprint.hpp
inline constexpr const char* paraview_group = "/paraview";
inline constexpr const char* paraview_points = "/paraview/points";
inline constexpr const char* paraview_connectivity = "/paraview/connectivity";
inline constexpr const char* paraview_normal = "/paraview/normal";

}  // namespace nodegen::io::layout
