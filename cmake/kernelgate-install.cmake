# `cmake --install <build> --prefix <prefix>`: the kernelgate CLI with the
# stock candidates, the libraries a project's own kernelgate binary links
# (exported as kernelgate::<concern>), the headers a candidate includes and
# no other, the suites and schemas, and the package that find_package(kernelgate
# CONFIG) loads (docs/consumer.md).
include(CMakePackageConfigHelpers)
set(KERNELGATE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/kernelgate)
set(KERNELGATE_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/kernelgate)

set(exported kg_json kg_ops kg_suite kg_device kg_lint kg_runner kg_gate kg_report kg_harness kg_cli)
if(NOT KERNELGATE_GPU)
  list(APPEND exported kg_interpret)
endif()
install(TARGETS ${exported} EXPORT kernelgateTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS kernelgate RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# What a candidate includes (kernelgate/candidate.hpp, cuda.hpp, ptx.hpp,
# grid_stride.hpp) and what those include, in either build; the harness's own
# headers stay out.
set(header_dir ${KERNELGATE_SOURCE_DIR}/harness/include/kernelgate)
install(FILES ${header_dir}/candidate.hpp ${header_dir}/cuda.hpp ${header_dir}/ptx.hpp ${header_dir}/grid_stride.hpp
              ${header_dir}/axes.hpp ${header_dir}/dtype.hpp ${header_dir}/error.hpp
              ${header_dir}/kernel_resources.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kernelgate)
# cuda.hpp's device queries, in the gpu build, and dtype.hpp's table of names.
install(FILES ${header_dir}/detail/device_query.hpp ${header_dir}/detail/enum_names.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kernelgate/detail)
if(NOT KERNELGATE_GPU)
  foreach(header IN ITEMS builtins counters cuda_shims intrinsics launch qualifiers runtime sync vector_types)
    install(FILES ${header_dir}/interpret/${header}.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kernelgate/interpret)
  endforeach()
endif()

install(DIRECTORY ${KERNELGATE_SUITES_DIR}/ DESTINATION ${KERNELGATE_INSTALL_DATADIR}/suites)
install(FILES ${KERNELGATE_SOURCE_DIR}/docs/suite.schema.json ${KERNELGATE_SOURCE_DIR}/docs/baseline.schema.json
              ${KERNELGATE_SOURCE_DIR}/docs/report.schema.json
        DESTINATION ${KERNELGATE_INSTALL_DATADIR}/schemas)

install(EXPORT kernelgateTargets NAMESPACE kernelgate:: DESTINATION ${KERNELGATE_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/kernelgateConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/kernelgateConfig.cmake
  INSTALL_DESTINATION ${KERNELGATE_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_BINDIR KERNELGATE_INSTALL_DATADIR)
# Before 1.0 a minor version may change the candidate interface.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/kernelgateConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kernelgateConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/kernelgateConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/kernelgate-functions.cmake
        DESTINATION ${KERNELGATE_INSTALL_CMAKEDIR})
install(PROGRAMS ${CMAKE_CURRENT_LIST_DIR}/fail_on_ptxas_notices.sh ${CMAKE_CURRENT_LIST_DIR}/fail_on_unpoisoned_shared.sh
        DESTINATION ${KERNELGATE_INSTALL_CMAKEDIR})
