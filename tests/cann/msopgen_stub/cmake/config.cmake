# Stand-in for msopgen's cmake/config.cmake: the variables the op_host/op_kernel files use.
if(NOT DEFINED ASCEND_COMPUTE_UNIT)
    message(FATAL_ERROR "ASCEND_COMPUTE_UNIT not set in CMakePresets.json")
endif()
set(ASCEND_AUTOGEN_PATH ${CMAKE_BINARY_DIR}/autogen)
set(ASCEND_FRAMEWORK_TYPE tensorflow)
file(MAKE_DIRECTORY ${ASCEND_AUTOGEN_PATH})
file(WRITE ${CMAKE_BINARY_DIR}/calls.txt "")
