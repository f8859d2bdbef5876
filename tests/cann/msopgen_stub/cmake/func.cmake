# Stand-in for msopgen's cmake/func.cmake: each CANN build function records its arguments in
# ${CMAKE_BINARY_DIR}/calls.txt ("name|arg1|arg2..."); opbuild also writes the files the real one
# generates at configure time, so add_library finds them.
function(_opgen_record name)
    string(REPLACE ";" "|" args "${ARGN}")
    file(APPEND ${CMAKE_BINARY_DIR}/calls.txt "${name}|${args}\n")
endfunction()

function(opbuild)
    cmake_parse_arguments(OPBUILD "" "OUT_DIR" "OPS_SRC" ${ARGN})
    _opgen_record(opbuild ${OPBUILD_OPS_SRC})
    foreach(src ${OPBUILD_OPS_SRC})
        if(NOT EXISTS ${src})
            message(FATAL_ERROR "opbuild: no such source ${src}")
        endif()
        get_filename_component(stem ${src} NAME_WE)
        file(WRITE ${OPBUILD_OUT_DIR}/aclnn_${stem}.cpp "")
    endforeach()
    file(WRITE ${OPBUILD_OUT_DIR}/op_proto.cc "")
    file(WRITE ${OPBUILD_OUT_DIR}/op_proto.h "")
endfunction()

function(add_ops_compile_options)
    _opgen_record(add_ops_compile_options ${ARGN})
endfunction()

function(add_ops_info_target)
    cmake_parse_arguments(A "" "TARGET" "" ${ARGN})
    _opgen_record(add_ops_info_target ${A_TARGET})
    add_custom_target(${A_TARGET})
endfunction()

function(add_ops_impl_target)
    cmake_parse_arguments(A "" "TARGET;IMPL_DIR" "" ${ARGN})
    _opgen_record(add_ops_impl_target ${A_TARGET} ${A_IMPL_DIR})
    add_custom_target(${A_TARGET})
endfunction()

function(add_bin_compile_target)
    cmake_parse_arguments(A "" "TARGET" "" ${ARGN})
    _opgen_record(add_bin_compile_target ${A_TARGET})
    add_custom_target(${A_TARGET})
endfunction()

function(add_npu_support_target)
    cmake_parse_arguments(A "" "TARGET" "" ${ARGN})
    _opgen_record(add_npu_support_target ${A_TARGET})
endfunction()
