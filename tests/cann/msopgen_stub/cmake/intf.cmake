# Stand-in for msopgen's cmake/intf.cmake.
add_library(intf_pub INTERFACE)
