# CMake toolchain file: cross build of the C++ partition example for 64-bit Arm Linux (Jetson /
# DRIVE Orin Linux) with Debian's GNU cross toolchain (packages g++-aarch64-linux-gnu and
# libc6-dev-arm64-cross).
#
#   cmake -S examples/cpp-partition -B build-aarch64 \
#         -DCMAKE_TOOLCHAIN_FILE=examples/cpp-partition/cmake/aarch64-linux-gnu.cmake \
#         -DORIN_EXEC_LIB_DIR=$CARGO_TARGET_DIR/aarch64-unknown-linux-gnu/release
#
# The library comes from `cargo build -p orin-exec-capi --release --target
# aarch64-unknown-linux-gnu` with the same cross linker (ci/cpp-example.sh).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CROSS_TRIPLE aarch64-linux-gnu CACHE STRING "GNU triple of the cross toolchain")
set(CMAKE_C_COMPILER ${CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${CROSS_TRIPLE}-g++)

# Debian's multiarch cross sysroot; libraries and headers only from the target's side.
set(CMAKE_FIND_ROOT_PATH /usr/${CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Run the result under user-mode QEMU where it is installed (ctest, try_run); the library path
# points QEMU at the cross libc.
find_program(QEMU_AARCH64 qemu-aarch64)
if(QEMU_AARCH64)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${QEMU_AARCH64} -L /usr/${CROSS_TRIPLE})
endif()
