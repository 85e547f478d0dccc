// Locating a wire-format error in a serialized protobuf message, for the
// proto reader's messages ("module.pb: byte 4012: truncated length-delimited
// field 3").
#pragma once

#include <google/protobuf/descriptor.h>

#include <cstddef>
#include <string>

namespace roofline::detail {

struct WireError {
  std::size_t offset = 0;
  std::string message;
};

// Walks the message of type `d` in p[begin, end) as libprotobuf would and
// reports the first place it cannot continue (true, with `err` set). Known
// message fields are walked into; everything else is skipped by wire type.
bool find_wire_error(const unsigned char* p, std::size_t begin, std::size_t end,
                     const google::protobuf::Descriptor* d, int depth, WireError* err);

}  // namespace roofline::detail
