#include "hdf5_field_file.hpp"

#include "hdf5_handle.hpp"

#include <karman/comm/ranks.hpp>

#include <system_error>

namespace karman::detail {
namespace {

void write_attribute(hid_t location, const char* name, hid_t file_type, hid_t memory_type, const void* values,
                     hsize_t count, const std::string& where) {
  const std::string failure = where + ": cannot write attribute '" + name + "'";
  Handle space(count == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr), H5Sclose, failure);
  Handle attribute(H5Acreate2(location, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, failure);
  check(H5Awrite(attribute.get(), memory_type, values), failure);
}

/// The common body: `file_access` picks the driver, `transfer` independent or collective I/O.
void write(const FieldFile& file, const io::BoxGeometry& box, const std::vector<std::string>& names, int step,
           double time, const io::FieldSlab& slab, hid_t file_access, hid_t transfer) {
  const std::string where = "karman::io::FieldWriter: HDF5 file '" + file.path.string() + "'";
  silence_hdf5_errors();
  FileHandle h5file(H5Fcreate(file.path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, file_access), file_access,
                    where + ": cannot create it");
  {
    // Enough for a reader of this file alone to place it in the global box.
    const hid_t root = h5file.get();
    const long long step_value = step;
    const long long extents[3] = {box.extents.nx, box.extents.ny, box.extents.nz};
    const int axis = box.extents.slab_axis();
    write_attribute(root, "step", H5T_STD_I64LE, H5T_NATIVE_LLONG, &step_value, 1, where);
    write_attribute(root, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &time, 1, where);
    write_attribute(root, "origin", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, box.origin.data(), 3, where);
    write_attribute(root, "spacing", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, box.spacing.data(), 3, where);
    write_attribute(root, "global_extents", H5T_STD_I64LE, H5T_NATIVE_LLONG, extents, 3, where);
    write_attribute(root, "slab_axis", H5T_STD_I32LE, H5T_NATIVE_INT, &axis, 1, where);
    write_attribute(root, "slab_begin", H5T_STD_I32LE, H5T_NATIVE_INT, &file.slab_begin, 1, where);
    write_attribute(root, "slab_planes", H5T_STD_I32LE, H5T_NATIVE_INT, &file.slab_planes, 1, where);

    const hsize_t shape[3] = {file.shape[0], file.shape[1], file.shape[2]};
    const hsize_t offset[3] = {file.offset[0], file.offset[1], file.offset[2]};
    const hsize_t count[3] = {file.count[0], file.count[1], file.count[2]};
    Handle file_space(H5Screate_simple(3, shape, nullptr), H5Sclose, where + ": cannot describe the datasets");
    Handle memory_space(H5Screate_simple(3, count, nullptr), H5Sclose, where + ": cannot describe the slab");
    check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, offset, nullptr, count, nullptr),
          where + ": cannot select the slab");
    // Every value is written right after creation: pre-filling would write each dataset twice.
    Handle creation(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, where + ": cannot create dataset properties");
    check(H5Pset_fill_time(creation.get(), H5D_FILL_TIME_NEVER), where + ": cannot set the fill time");
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string failure = where + ": cannot write dataset '" + names[i] + "'";
      Handle dataset(H5Dcreate2(root, names[i].c_str(), H5T_IEEE_F64LE, file_space.get(), H5P_DEFAULT, creation.get(),
                                H5P_DEFAULT),
                     H5Dclose, failure);
      check(H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), transfer,
                     slab.datasets[i].data),
            failure);
    }
  }
  h5file.close(where + ": cannot close (flush) it");
}

}  // namespace

void write_field_file(const FieldFile& file, const io::BoxGeometry& box, const std::vector<std::string>& names,
                      int step, double time, const io::FieldSlab& slab) {
  write(file, box, names, step, time, slab, H5P_DEFAULT, H5P_DEFAULT);
}

#if KARMAN_ENABLE_MPI && KARMAN_HDF5_PARALLEL
void write_shared_field_file(const FieldFile& file, const io::BoxGeometry& box, const std::vector<std::string>& names,
                             int step, double time, const io::FieldSlab& slab, MPI_Comm comm) {
  const std::string where = "karman::io::FieldWriter: HDF5 file '" + file.path.string() + "'";
  Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, where + ": cannot create file access properties");
  check(H5Pset_fapl_mpio(access.get(), comm, MPI_INFO_NULL), where + ": cannot select MPI-IO");
  // Metadata written and read collectively: one rank touches the file system, not all of them.
  check(H5Pset_coll_metadata_write(access.get(), true), where + ": cannot set collective metadata writes");
  check(H5Pset_all_coll_metadata_ops(access.get(), true), where + ": cannot set collective metadata reads");
  Handle transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose, where + ": cannot create transfer properties");
  // Collective transfers let MPI-IO merge the ranks' slabs into large contiguous file accesses.
  check(H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE), where + ": cannot select collective transfers");
  // From the file's creation to its close every call may be collective: a rank that fails there
  // (a disk that fills during the write) ends every rank at once rather than leave the others
  // waiting for it. The hidden temporary file goes first; the published steps stay intact.
  const comm::Ranks ranks(comm);
  const FailuresEndEveryRank end_every_rank([&](const std::string& failure) {
    std::error_code ignored;
    std::filesystem::remove(file.path, ignored);
    ranks.abort_all(failure +
                    " (the other ranks wait in collective MPI-IO calls, so every rank ends); the steps "
                    "written before are intact");
  });
  write(file, box, names, step, time, slab, access.get(), transfer.get());
}
#endif

}  // namespace karman::detail
