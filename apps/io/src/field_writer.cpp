#include <karman/core/error.hpp>
#include <karman/io/atomic_file.hpp>
#include <karman/io/field_writer.hpp>

#include "unique_file.hpp"
#include "xdmf.hpp"
#if KARMAN_ENABLE_HDF5
#include "hdf5_field_file.hpp"
#endif

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace karman::io {
namespace {

const char* const where_writer = "karman::io::FieldWriter";
const char* const where_write = "karman::io::FieldWriter::write";
const char* const no_hdf5 =
    "karman::io::FieldWriter: this karman was built without HDF5 (KARMAN_ENABLE_HDF5=OFF), so fields are not "
    "written; reconfigure with -DKARMAN_ENABLE_HDF5=ON and an HDF5 installed";

/// "fields_000042": six digits keep a directory listing in step order for runs below 10^6 steps.
std::string step_stem(int step) {
  char stem[32];
  std::snprintf(stem, sizeof stem, "fields_%06d", step);
  return stem;
}

std::string per_rank_name(int step, int rank) { return step_stem(step) + "_rank" + std::to_string(rank) + ".h5"; }

const char* axis_name(int axis) { return axis == 2 ? "z" : (axis == 1 ? "y" : "x"); }

/// Names become HDF5 link names and XML attribute values: a conservative alphabet needs no escaping.
void check_names(const std::vector<std::string>& names) {
  if (names.empty()) throw Error(std::string(where_writer) + ": no dataset names; give at least one (e.g. rho)");
  std::set<std::string> seen;
  for (const std::string& n : names) {
    const bool valid = !n.empty() && std::all_of(n.begin(), n.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    });
    if (!valid) {
      throw Error(std::string(where_writer) + ": dataset name '" + n +
                  "' is empty or holds a character other than letters, digits, '_' and '-'");
    }
    if (!seen.insert(n).second) throw Error(std::string(where_writer) + ": dataset name '" + n + "' given twice");
  }
}

}  // namespace

bool FieldWriter::available() {
#if KARMAN_ENABLE_HDF5
  return true;
#else
  return false;
#endif
}

bool FieldWriter::parallel_hdf5() {
#if KARMAN_ENABLE_HDF5 && KARMAN_HDF5_PARALLEL && KARMAN_ENABLE_MPI
  return true;
#else
  return false;
#endif
}

FieldWriter::FieldWriter(std::filesystem::path directory, BoxGeometry box, std::vector<std::string> dataset_names,
                         FileMode mode)
    : m_directory(std::move(directory)), m_box(box), m_names(std::move(dataset_names)) {
  resolve_mode(mode);
}

#if KARMAN_ENABLE_MPI
FieldWriter::FieldWriter(std::filesystem::path directory, BoxGeometry box, std::vector<std::string> dataset_names,
                         MPI_Comm comm, FileMode mode)
    : m_directory(std::move(directory)), m_box(box), m_names(std::move(dataset_names)), m_writers(comm) {
  resolve_mode(mode);
}
#endif

void FieldWriter::resolve_mode(FileMode requested) {
  if (!available()) throw Error(no_hdf5);
  if (m_directory.empty()) throw Error(std::string(where_writer) + ": empty output directory");
  validate(m_box, where_writer);
  check_names(m_names);
  const bool shared_possible = m_writers.size() == 1 || parallel_hdf5();
  if (requested == FileMode::single_file && !shared_possible) {
    throw Error(std::string(where_writer) + ": file mode 'single' with " + std::to_string(m_writers.size()) +
                " ranks needs parallel HDF5 and this build has serial HDF5; use 'per-rank' or 'auto'");
  }
  m_mode = requested == FileMode::automatic ? (shared_possible ? FileMode::single_file : FileMode::file_per_rank)
                                            : requested;
}

std::vector<std::string> FieldWriter::file_names(int step) const {
  if (m_mode == FileMode::single_file) return {step_stem(step) + ".h5"};
  std::vector<std::string> names;
  for (int r = 0; r < m_writers.size(); ++r) names.push_back(per_rank_name(step, r));
  return names;
}

void FieldWriter::check_slab(int step, double time, const FieldSlab& slab) const {
  require_in_range(where_write, "step", step, 0, INT_MAX);
  if (!std::isfinite(time)) {
    std::ostringstream msg;
    msg << where_write << ": time = " << time << " at step " << step << "; it must be finite";
    throw Error(msg.str());
  }
  const int planes = m_box.extents.extent(slab_axis());
  require_in_range(where_write, "slab_begin", slab.slab_begin, 0, planes - 1);
  require_in_range(where_write, "slab_planes", slab.slab_planes, 1, planes - slab.slab_begin);
  if (slab.datasets.size() != m_names.size()) {
    throw Error(std::string(where_write) + ": " + std::to_string(slab.datasets.size()) + " arrays for " +
                std::to_string(m_names.size()) + " dataset names; give one array per name, in the same order");
  }
  const std::size_t values = static_cast<std::size_t>(slab.slab_planes) * m_box.extents.plane_size();
  for (std::size_t i = 0; i < m_names.size(); ++i) {
    const HostArray& array = slab.datasets[i];
    if (array.data == nullptr || array.size != values) {
      throw Error(std::string(where_write) + ": dataset '" + m_names[i] + "' has " +
                  (array.data == nullptr ? std::string("no data") : std::to_string(array.size) + " values") +
                  "; a slab of " + std::to_string(slab.slab_planes) + " planes of " +
                  std::to_string(m_box.extents.plane_size()) + " cells needs " + std::to_string(values));
    }
  }
}

void FieldWriter::write(int step, double time, const FieldSlab& slab) {
  m_writers.run([&] { check_slab(step, time, slab); });

  // Every rank checks the same gathered slabs and fails alike; run() makes that failure a
  // CollectiveError, as every other of this call, worded by rank 0.
  const std::vector<long long> gathered = m_writers.all_gather({step, slab.slab_begin, slab.slab_planes});
  WrittenStep written = m_writers.run([&] {
    WrittenStep slabs;
    slabs.step = step;
    slabs.time = time;
    for (int r = 0; r < m_writers.size(); ++r) {
      if (gathered[3 * r] != step) {
        throw Error(std::string(where_write) + ": rank " + std::to_string(r) + " writes step " +
                    std::to_string(gathered[3 * r]) + ", rank " + std::to_string(m_writers.rank()) + " step " +
                    std::to_string(step) + "; every rank writes the same step");
      }
      slabs.slab_begins.push_back(static_cast<int>(gathered[3 * r + 1]));
      slabs.slab_planes.push_back(static_cast<int>(gathered[3 * r + 2]));
    }
    std::vector<int> order(m_writers.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return slabs.slab_begins[a] < slabs.slab_begins[b]; });
    int next_plane = 0;
    for (int r : order) {
      if (slabs.slab_begins[r] != next_plane) {
        throw Error(std::string(where_write) + ": the slabs do not tile the " +
                    std::to_string(m_box.extents.extent(slab_axis())) + " planes along " + axis_name(slab_axis()) +
                    ": rank " + std::to_string(r) + " starts at plane " + std::to_string(slabs.slab_begins[r]) +
                    " where plane " + std::to_string(next_plane) + " was expected");
      }
      next_plane += slabs.slab_planes[r];
    }
    if (next_plane != m_box.extents.extent(slab_axis())) {
      throw Error(std::string(where_write) + ": the slabs cover planes [0, " + std::to_string(next_plane) +
                  ") of the " + std::to_string(m_box.extents.extent(slab_axis())) + " along " + axis_name(slab_axis()));
    }
    return slabs;
  });

  m_writers.run([&] { check_free_space(step, slab); });
  m_writers.run([&] { write_hdf5(step, time, slab); });
  m_writers.run([&] {
    if (m_writers.root()) record_step(std::move(written));
  });
}

void FieldWriter::check_free_space(int step, const FieldSlab& slab) const {
  // A shared file on a disk that fills up stops parallel HDF5 with the ranks in different
  // collective calls of H5Fclose, where they wait for each other forever: so the space is
  // checked first, and a full disk becomes an error all ranks agree on before any of them starts.
  const bool shared = m_mode == FileMode::single_file;
  if (shared && !m_writers.root()) return;
  const std::size_t planes = shared ? std::size_t(m_box.extents.extent(slab_axis())) : std::size_t(slab.slab_planes);
  const double need = double(planes * m_box.extents.plane_size() * m_names.size() * sizeof(double)) + 65536.0;
  struct statvfs fs {};
  if (::statvfs(m_directory.c_str(), &fs) != 0) return;  // the write itself will say what is wrong
  const double free_bytes = double(fs.f_bavail) * double(fs.f_frsize);
  if (free_bytes < need) {
    char text[160];
    std::snprintf(text, sizeof text, "%.0f bytes free, step %d needs about %.0f", free_bytes, step, need);
    throw Error(std::string(where_write) + ": cannot write into '" + m_directory.string() +
                "': No space left on device (" + text + "); earlier steps are intact");
  }
}

void FieldWriter::adopt_earlier_steps(int step, int every, const FieldSlab& slab) {
  const std::vector<long long> gathered = m_writers.all_gather({step, slab.slab_begin, slab.slab_planes});
  m_writers.run([&] {
    if (!m_writers.root() || every <= 0) return;
    for (int s = 0; s <= step; s += every) {
      bool complete = true;
      for (const std::string& name : file_names(s)) complete = complete && std::filesystem::exists(m_directory / name);
      // A file of one rank more means another rank count wrote this step: other slabs.
      if (m_mode == FileMode::file_per_rank)
        complete = complete && !std::filesystem::exists(m_directory / per_rank_name(s, m_writers.size()));
      if (!complete) continue;
      WrittenStep written;
      written.step = s;
      written.time = double(s);
      for (int r = 0; r < m_writers.size(); ++r) {
        written.slab_begins.push_back(static_cast<int>(gathered[3 * r + 1]));
        written.slab_planes.push_back(static_cast<int>(gathered[3 * r + 2]));
      }
      record_step(std::move(written));
    }
  });
}

void FieldWriter::write_hdf5(int step, double time, const FieldSlab& slab) const {
#if KARMAN_ENABLE_HDF5
  // Datasets are (z, y, x): the slab axis is dimension 0 in 3D and 1 in 2D.
  const int dim = 2 - slab_axis();
  const std::array<unsigned long long, 3> global = {static_cast<unsigned long long>(m_box.extents.nz),
                                                    static_cast<unsigned long long>(m_box.extents.ny),
                                                    static_cast<unsigned long long>(m_box.extents.nx)};
  detail::FieldFile file;
  file.count = global;
  file.count[dim] = static_cast<unsigned long long>(slab.slab_planes);
  std::string name;
  if (m_mode == FileMode::file_per_rank) {
    name = per_rank_name(step, m_writers.rank());
    file.shape = file.count;
    file.slab_begin = slab.slab_begin;
    file.slab_planes = slab.slab_planes;
  } else {
    name = step_stem(step) + ".h5";
    file.shape = global;
    file.offset[dim] = static_cast<unsigned long long>(slab.slab_begin);
    file.slab_planes = m_box.extents.extent(slab_axis());
  }
  // Readers (ParaView following the XDMF file) never see a half-written file.
  file.path = temporary_field_file(name);
  try {
    if (m_writers.size() == 1 || m_mode == FileMode::file_per_rank) {
      detail::write_field_file(file, m_box, m_names, step, time, slab);
    } else {
#if KARMAN_ENABLE_MPI && KARMAN_HDF5_PARALLEL
      detail::write_shared_field_file(file, m_box, m_names, step, time, slab, m_writers.comm());
#else
      throw std::logic_error("karman::io::FieldWriter: one shared file from several ranks without parallel HDF5");
#endif
    }
  } catch (...) {
    // A failed write (a full disk) leaves no hidden temporary file behind.
    std::error_code ec;
    if (m_writers.root() || m_mode == FileMode::file_per_rank) std::filesystem::remove(file.path, ec);
    throw;
  }
  // H5Fclose of a shared file is collective: once it returns on rank 0 every rank's data is in.
  if (m_writers.root() || m_mode == FileMode::file_per_rank) {
    detail::publish_file(file.path, m_directory / name, where_write);
  }
#else
  (void)step, (void)time, (void)slab;
  throw Error(no_hdf5);
#endif
}

std::filesystem::path FieldWriter::temporary_field_file(const std::string& name) const {
  const std::string stem = "." + name + ".";
  if (m_writers.size() == 1 || m_mode == FileMode::file_per_rank) {
    const detail::UniqueFile file = detail::create_unique_file(m_directory, stem, where_write);
    ::close(file.fd);
    return file.path;
  }
  // One shared file: rank 0 draws the name and creates it, every rank opens that one.
  long long created = 0, token = 0;
  if (m_writers.root()) {
    for (int attempt = 0; attempt < 16 && created == 0; ++attempt) {
      token = static_cast<long long>(detail::random_token());
      const int fd = detail::create_exclusively(detail::unique_name(m_directory, stem, std::uint64_t(token)));
      if (fd >= 0) created = ::close(fd) == 0 ? 1 : 0;
    }
  }
  const std::vector<long long> shared = m_writers.all_gather({created, token});
  if (shared[0] == 0) {
    throw Error(std::string(where_write) + ": cannot create a file in '" + m_directory.string() + "'");
  }
  return detail::unique_name(m_directory, stem, std::uint64_t(shared[1]));
}

void FieldWriter::record_step(WrittenStep written) {
  const auto same_step = [&](const WrittenStep& w) { return w.step == written.step; };
  const auto previous = std::find_if(m_written.begin(), m_written.end(), same_step);
  if (previous != m_written.end()) {
    *previous = std::move(written);
  } else {
    m_written.push_back(std::move(written));
  }

  const int axis = slab_axis();
  const std::array<int, 3> cells = {m_box.extents.nx, m_box.extents.ny, m_box.extents.nz};
  std::array<double, 3> first_centre;
  for (int a = 0; a < 3; ++a) first_centre[a] = m_box.origin[a] + 0.5 * m_box.spacing[a];
  std::vector<detail::XdmfStep> steps;
  for (const WrittenStep& w : m_written) {
    detail::XdmfStep entry;
    entry.step = w.step;
    entry.time = w.time;
    if (m_mode == FileMode::single_file) {
      entry.pieces.push_back({step_stem(w.step) + ".h5", cells, first_centre});
    } else {
      for (int r = 0; r < m_writers.size(); ++r) {
        detail::XdmfPiece piece{per_rank_name(w.step, r), cells, first_centre};
        piece.cells[axis] = w.slab_planes[r];
        piece.first_centre[axis] += w.slab_begins[r] * m_box.spacing[axis];
        entry.pieces.push_back(piece);
      }
    }
    steps.push_back(std::move(entry));
  }
  write_file_atomically(xdmf_path(), detail::xdmf_document(steps, m_names, m_box.spacing));
}

}  // namespace karman::io
