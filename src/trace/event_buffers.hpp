// Event arrays handed from one file's read to the next on the same thread.
// Internal to the readers and their callers that read many files.
#pragma once

#include <cstddef>
#include <vector>

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

// Which timelines' arrays keep_for_next_file keeps.
enum class KeptTimelines { kDevices, kDevicesAndHosts };

// Replaces this thread's keep with the event arrays of `t`'s devices (and
// hosts), which are left empty: arrays the previous file's read did not
// take back are freed, so a thread keeps one file's worth at most. Arrays
// under 1 MiB are freed, and so are those past 16 or past 512 MiB.
void keep_for_next_file(Trace& t, KeptTimelines which);

// The bytes of the arrays this thread keeps (their capacity).
std::size_t kept_event_bytes();

// Frees what this thread keeps: a read of many files ends with it (its pool's
// threads end, or, reading on the calling thread, run_in_order calls it).
void free_kept_events();

}  // namespace roofline::detail
