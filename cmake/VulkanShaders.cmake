# The Vulkan backend's shaders: every src/**/*.comp (GLSL compute, one per
# kernel, in its metric's folder) is compiled to SPIR-V with glslc at build
# time and embedded in the library (a C++ array of 32-bit words per shader and
# an index by name, backend/vulkan/shaders.h), and translated to Metal Shading
# Language with spirv-cross into <build>/shaders/msl/ (target vqe_msl, checked
# by the Metal-subset test in tests/gpu/test_metal_subset.cpp; nothing runs
# the MSL here).
#
# Script mode (one shader's words into a C++ source):
#   cmake -DSPV=x.spv -DNAME=x -DOUT=x.cpp -P cmake/VulkanShaders.cmake

function(vqe_spirv_to_cpp spv name out)
  file(READ "${spv}" hex HEX)
  string(LENGTH "${hex}" n)
  math(EXPR rem "${n} % 8")
  if(n EQUAL 0 OR NOT rem EQUAL 0)
    message(FATAL_ERROR "${spv}: not a SPIR-V word stream")
  endif()
  # Bytes b0 b1 b2 b3 (little-endian file) -> word 0xb3b2b1b0.
  string(REGEX REPLACE "(..)(..)(..)(..)" "0x\\4\\3\\2\\1u," words "${hex}")
  string(REGEX REPLACE "((0x[0-9a-f]+u,){8})" "\\1\n" words "${words}")
  set(content "// GENERATED from ${name}.comp by glslc; do not edit.\n")
  string(APPEND content "#include <cstdint>\n#include <span>\nnamespace vqe::vulkan::shader_data {\n")
  string(APPEND content "extern const std::uint32_t k_${name}[];\nextern const std::size_t k_${name}_words;\n")
  string(APPEND content "const std::uint32_t k_${name}[] = {\n${words}};\n")
  string(APPEND content "const std::size_t k_${name}_words = sizeof(k_${name}) / 4;\n}\n")
  file(WRITE "${out}.tmp" "${content}")
  file(RENAME "${out}.tmp" "${out}")
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  vqe_spirv_to_cpp("${SPV}" "${NAME}" "${OUT}")
  return()
endif()

function(vqe_vulkan_shaders out_sources)
  file(GLOB_RECURSE comp_files CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/*.comp")
  list(SORT comp_files)
  set(dir "${PROJECT_BINARY_DIR}/shaders")
  file(MAKE_DIRECTORY "${dir}/msl")
  set(glsl_include "${PROJECT_SOURCE_DIR}/src/backend/vulkan/glsl")
  set(sources "")
  set(msl_files "")
  set(declarations "")
  set(entries "")
  set(names "")
  foreach(comp IN LISTS comp_files)
    get_filename_component(name "${comp}" NAME_WE)
    if(name IN_LIST names)
      message(FATAL_ERROR "two shaders are named ${name}.comp: shader names must be unique")
    endif()
    list(APPEND names "${name}")
    set(spv "${dir}/${name}.spv")
    set(cpp "${dir}/spirv_${name}.cpp")
    set(msl "${dir}/msl/${name}.metal")
    # Vulkan 1.2 SPIR-V; -O; no debug info. glslc writes a depfile for the
    # #includes of backend/vulkan/glsl.
    add_custom_command(
      OUTPUT "${spv}"
      COMMAND "${VQE_GLSLC}" --target-env=vulkan1.2 -O -Werror -I "${glsl_include}"
              -MD -MF "${spv}.d" -o "${spv}" "${comp}"
      DEPENDS "${comp}"
      DEPFILE "${spv}.d"
      COMMENT "glslc ${name}.comp"
      VERBATIM)
    add_custom_command(
      OUTPUT "${cpp}"
      COMMAND "${CMAKE_COMMAND}" -DSPV=${spv} -DNAME=${name} -DOUT=${cpp}
              -P "${PROJECT_SOURCE_DIR}/cmake/VulkanShaders.cmake"
      DEPENDS "${spv}" "${PROJECT_SOURCE_DIR}/cmake/VulkanShaders.cmake"
      VERBATIM)
    add_custom_command(
      OUTPUT "${msl}"
      COMMAND "${VQE_SPIRV_CROSS}" --msl --msl-version 20200 --output "${msl}" "${spv}"
      DEPENDS "${spv}"
      COMMENT "spirv-cross --msl ${name}"
      VERBATIM)
    list(APPEND sources "${cpp}")
    list(APPEND msl_files "${msl}")
    string(APPEND declarations
           "extern const std::uint32_t k_${name}[];\nextern const std::size_t k_${name}_words;\n")
    string(APPEND entries "      {\"${name}\", {k_${name}, k_${name}_words}},\n")
  endforeach()
  list(LENGTH names count)
  set(index "${dir}/spirv_index.cpp")
  set(content "// GENERATED at configure time from src/**/*.comp; do not edit.\n")
  string(APPEND content "#include <array>\n#include <cstdint>\n#include <string_view>\n#include <utility>\n")
  string(APPEND content "#include \"backend/vulkan/shaders.h\"\n")
  string(APPEND content "namespace vqe::vulkan {\nnamespace shader_data {\n${declarations}}\n")
  string(APPEND content "using namespace shader_data;\n")
  string(APPEND content "std::span<const EmbeddedShader> embedded_shaders() {\n")
  string(APPEND content "  static const std::array<EmbeddedShader, ${count}> kTable = {{\n${entries}  }};\n")
  string(APPEND content "  return kTable;\n}\n}  // namespace vqe::vulkan\n")
  file(CONFIGURE OUTPUT "${index}" CONTENT "${content}" @ONLY)
  list(APPEND sources "${index}")
  # MSL translations, built with the library (the Metal-subset test reads them).
  add_custom_target(vqe_msl ALL DEPENDS ${msl_files})
  set(VQE_MSL_DIR "${dir}/msl" PARENT_SCOPE)
  set(VQE_SHADER_NAMES "${names}" PARENT_SCOPE)
  set(${out_sources} "${sources}" PARENT_SCOPE)
endfunction()
