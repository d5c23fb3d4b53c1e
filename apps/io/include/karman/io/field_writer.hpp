#pragma once
/// \file field_writer.hpp
/// Field output: one HDF5 file per step (or one per rank and step with serial HDF5) and one XDMF
/// file beside them that ParaView opens as a time series (README "Quick start": the outputs).

#include <karman/comm/ranks.hpp>
#include <karman/io/box_geometry.hpp>
#include <karman/io/field_slab.hpp>
#include <karman/io/file_mode.hpp>

#include <filesystem>
#include <string>
#include <vector>

#if KARMAN_ENABLE_MPI
#include <mpi.h>
#endif

namespace karman::io {

/// Writes named double fields of a global box, cut into slabs over the ranks, at chosen steps.
///
/// Each write(step, time, slab) creates `fields_<step>.h5` (step zero-padded to six digits)
/// with one dataset per name of global shape (nz, ny, nx), x fastest; root attributes `step`,
/// `time`, `origin`, `spacing`, `global_extents` (x, y, z order), `slab_axis`, `slab_begin` and
/// `slab_planes` describe it. With several ranks and parallel HDF5 every rank writes its
/// hyperslab of that one file collectively (MPI-IO); with serial HDF5 rank r writes
/// `fields_<step>_rank<r>.h5` holding its slab only. Files are written under a temporary name and
/// renamed when complete. Rank 0 then rewrites `fields.xdmf` atomically: a temporal collection of
/// every step this writer has written, values placed at cell centres.
class FieldWriter {
 public:
  /// A writer for one process: `dataset_names` (letters, digits, '_' and '-', distinct) are the
  /// datasets every write() receives, in this order. Throws karman::Error on bad arguments and
  /// when this build has no HDF5 (KARMAN_ENABLE_HDF5=OFF). Does not touch the file system; call
  /// prepare_output_directory() first.
  FieldWriter(std::filesystem::path directory, BoxGeometry box, std::vector<std::string> dataset_names,
              FileMode mode = FileMode::automatic);
#if KARMAN_ENABLE_MPI
  /// A writer shared by every rank of `comm` (a collective call); `comm` must stay valid while
  /// the writer is used. A single_file `mode` on several ranks needs parallel HDF5.
  FieldWriter(std::filesystem::path directory, BoxGeometry box, std::vector<std::string> dataset_names, MPI_Comm comm,
              FileMode mode = FileMode::automatic);
#endif

  FieldWriter(const FieldWriter&) = delete;
  FieldWriter& operator=(const FieldWriter&) = delete;
  FieldWriter(FieldWriter&&) = default;
  FieldWriter& operator=(FieldWriter&&) = default;
  ~FieldWriter() = default;

  /// Writes this rank's `slab` of every dataset as output step `step` (>= 0) at `time` (a
  /// collective call). Every rank passes the same step; the slabs tile the slab axis. On any
  /// rank's failure every rank throws the same comm::CollectiveError, naming the lowest failing
  /// rank, and the XDMF file lists only steps whose files are complete. Writing a step again
  /// replaces it.
  void write(int step, double time, const FieldSlab& slab);

  /// After a restart at `step`: lists in the XDMF file the earlier output steps (multiples of
  /// `every` up to `step`) whose files are all present, as if this writer had written them, so
  /// ParaView still sees the whole time series (a collective call; `slab` is this rank's, whose
  /// datasets are not read). Per-rank files count only when written by as many ranks as now.
  void adopt_earlier_steps(int step, int every, const FieldSlab& slab);

  /// single_file or file_per_rank, as chosen at construction.
  FileMode file_mode() const { return m_mode; }
  /// The axis the slabs cut: 2 (z) in 3D, 1 (y) in 2D.
  int slab_axis() const { return m_box.extents.slab_axis(); }
  /// The HDF5 files of output step `step` across all ranks, relative to the directory.
  std::vector<std::string> file_names(int step) const;
  /// The XDMF file rank 0 keeps up to date.
  std::filesystem::path xdmf_path() const { return m_directory / "fields.xdmf"; }
  /// This rank and the number of ranks writing.
  int rank() const { return m_writers.rank(); }
  int ranks() const { return m_writers.size(); }

  /// Whether this build writes HDF5 at all (configured with KARMAN_ENABLE_HDF5=ON).
  static bool available();
  /// Whether several ranks can share one file (parallel HDF5 and KARMAN_ENABLE_MPI).
  static bool parallel_hdf5();

 private:
  /// One output step as the XDMF file lists it: which slab every rank wrote.
  struct WrittenStep {
    int step = 0;
    double time = 0.0;
    std::vector<int> slab_begins;  ///< per rank
    std::vector<int> slab_planes;  ///< per rank
  };

  void resolve_mode(FileMode requested);
  void check_slab(int step, double time, const FieldSlab& slab) const;
  void write_hdf5(int step, double time, const FieldSlab& slab) const;
  /// A new empty hidden file for the field file `name`, created exclusively under an unpredictable
  /// name (a shared file: drawn and created by rank 0, the same name on every rank).
  std::filesystem::path temporary_field_file(const std::string& name) const;
  /// Throws karman::Error when the directory lacks the space of this rank's file of `step`.
  void check_free_space(int step, const FieldSlab& slab) const;
  void record_step(WrittenStep written);

  std::filesystem::path m_directory;
  BoxGeometry m_box;
  std::vector<std::string> m_names;
  FileMode m_mode = FileMode::single_file;
  comm::Ranks m_writers;               ///< one process, or the ranks of the communicator given
  std::vector<WrittenStep> m_written;  ///< kept on rank 0 only
};

}  // namespace karman::io
