#pragma once
/// \file io.hpp
/// Everything of karman_io (the karman command line's output) in one include.

#include <karman/io/atomic_file.hpp>
#include <karman/io/box_geometry.hpp>
#include <karman/io/checkpoint_file.hpp>
#include <karman/io/csv.hpp>
#include <karman/io/field_slab.hpp>
#include <karman/io/field_writer.hpp>
#include <karman/io/file_mode.hpp>
#include <karman/io/json.hpp>
#include <karman/io/output_directory.hpp>
#include <karman/io/voxel_image_file.hpp>
