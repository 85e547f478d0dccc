// Event arrays handed from one file's read to the next on the same thread.
// Internal to the readers.
#pragma once

#include <cstddef>
#include <vector>

#include "roofline/trace/read_parts.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline::detail {

// A TPU host's profile holds its devices' events in arrays of about 31 MB
// each (650 k events of 48 bytes). Read file after file, each such array
// was allocated afresh (glibc maps allocations of that size, and several
// were alive at once) and the kernel zeroed every page the reader wrote: a
// tenth of `report`'s time over a pod profile. A thread that reads many
// files keeps the arrays of the file it is done with, and the next file's
// read fills them again.
//
// An empty vector of capacity at least `capacity`: the smallest such array
// this thread keeps, or a new one. A new one of 1 MiB or more is rounded up
// to whole 3 MiB (64 Ki events), so that the next file's read of about as
// many events fits in it; a smaller one is neither taken nor kept.
std::vector<Event> take_events(std::size_t capacity);

// keep_for_next_file, kept_event_bytes and free_kept_events: in
// roofline/trace/read_parts.hpp, for the readers of many files.

}  // namespace roofline::detail
