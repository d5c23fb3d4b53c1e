#!/usr/bin/env python3
"""Sectors a warp's pull asks the L2 for, per D3Q19 direction, against the 4 of an unshifted load.

A warp is 32 consecutive voxels of a block (BlockShape::local_index: x fastest), a population's
values of a block one contiguous run (CSoA on the block-sparse grid), FP32, 32-byte sectors. The
pull of direction c reads voxel x - c, in this block or a neighbour's run; every distinct
(block, sector) is one sector request. The dense row is 32 voxels along x of a CSoA<32> chunk.
Session 33, docs/performance.md "Sectors a pull asks for". Session 34 adds the AA pattern: its odd
step reads and writes the neighbours' slots (both shifted), its even step only the voxel's own
(docs/performance.md, "AA on the block-sparse grid: neighbour steps by step kind"), and a thread
block that stages a cube of k^3 stored blocks and their neighbours' faces in shared memory one
population at a time, so that each sector is asked for once by the whole cube.
"""
import itertools

D3Q19 = [(0, 0, 0)] + [c for c in itertools.product((-1, 0, 1), repeat=3) if 0 < sum(map(abs, c)) <= 2]
WARP, VALUES_PER_SECTOR = 32, 8


def row_order(B):
    return lambda x, y, z: x + B * (y + B * z)


def morton_order(B):
    def key(x, y, z):
        k = 0
        for bit in range(B.bit_length() - 1):
            k |= ((x >> bit) & 1) << (3 * bit) | ((y >> bit) & 1) << (3 * bit + 1) | ((z >> bit) & 1) << (3 * bit + 2)
        return k
    return key


def sectors_reached(voxels, c, B, order):
    """Distinct (block, sector) pairs the pull of direction c reads for `voxels` (x, y, z)."""
    return len({((x // B, y // B, z // B), order(x % B, y % B, z % B) // VALUES_PER_SECTOR)
                for x, y, z in ((vx - c[0], vy - c[1], vz - c[2]) for vx, vy, vz in voxels)})


def block_sectors(B, order):
    """Mean sectors a warp load over the directions and the warps of a block."""
    voxel = {order(x, y, z): (x, y, z) for x, y, z in itertools.product(range(B), repeat=3)}
    warps = [[voxel[local] for local in range(first, first + WARP)] for first in range(0, B ** 3, WARP)]
    total = sum(sectors_reached(warp, c, B, order) for c in D3Q19 for warp in warps)
    return total / (len(D3Q19) * len(warps))


def staged_sectors(B, k, order):
    """Mean sectors a warp's worth of voxels costs when a cube of k^3 blocks is staged: the
    distinct (block, sector) pairs the cube's pulls reach, per direction, over its warps."""
    cube = list(itertools.product(range(k * B), repeat=3))
    total = sum(sectors_reached(cube, c, B, order) for c in D3Q19)
    return total / (len(D3Q19) * len(cube) / WARP)


def dense_sectors():
    return sum(len({(i - c[0]) // VALUES_PER_SECTOR for i in range(WARP)}) for c in D3Q19) / len(D3Q19)


# The pull's stores are unshifted: `ideal` sectors a warp and population.
ideal = WARP / VALUES_PER_SECTOR
dense = dense_sectors()
print(f"{'storage':28} {'sectors a warp load':>20} {'over unshifted':>15} {'loads+stores over dense':>24}")


def line(name, s):
    print(f"{name:28} {s:20.2f} {s / ideal:15.2f} {(s + ideal) / (dense + ideal):24.2f}")


line("dense CSoA<32> row", dense)
for B in (4, 8, 16):
    line(f"blocks {B}^3, x fastest", block_sectors(B, row_order(B)))
line("blocks 4^3, Z-order inside", block_sectors(4, morton_order(4)))
for k in (2, 3, 4):
    line(f"blocks 4^3, {k}^3 staged", staged_sectors(4, k, row_order(4)))


# AA: the odd step's loads and stores are both shifted, the even step's neither.
print()
print(f"{'AA, 4^3 blocks x fastest':28} {'odd over even step':>20} {'two steps over dense':>24}")
aa = block_sectors(4, row_order(4))
print(f"{'':28} {2 * aa / (2 * ideal):20.2f} {(2 * aa + 2 * ideal) / (2 * (dense + ideal)):24.2f}")
