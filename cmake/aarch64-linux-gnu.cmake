# CMake toolchain file: cross-compiles VQE for 64-bit Arm Linux with Debian's
# gcc cross compiler and arm64 (multiarch) libraries, and runs the built
# programs (gtest discovery, ctest) under qemu user-mode emulation.
#
#   cmake -S . -B build/aarch64 -G Ninja \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
#     -DVQE_ENABLE_CUDA=OFF -DVQE_BUILD_MICROBENCH=OFF
#
# scripts/cross-test-aarch64 installs the packages, builds and runs the tests.
# qemu reads its CPU model from $QEMU_CPU at run time (default: "max").

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(VQE_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${VQE_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${VQE_CROSS_TRIPLE}-g++)

# Debian multiarch: arm64 libraries in /usr/lib/aarch64-linux-gnu, headers
# (shared by all architectures) in /usr/include, CMake package files in
# /usr/lib/aarch64-linux-gnu/cmake or /usr/share/cmake (header-only ones).
set(CMAKE_LIBRARY_ARCHITECTURE ${VQE_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH /usr/${VQE_CROSS_TRIPLE} /usr/lib/${VQE_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${VQE_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig)

# ctest and gtest_discover_tests run the binaries under qemu. They find the
# arm64 loader and libraries of Debian's multiarch packages (libc6:arm64) in
# the usual places; "-L /usr/aarch64-linux-gnu" (the cross toolchain's libc)
# is not used: with it qemu 7.2 hangs in the first pthread_create.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
