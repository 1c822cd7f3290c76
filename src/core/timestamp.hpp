#pragma once
// The time stamps reports carry.
#include <string>

namespace gpubench {

/// The current time in UTC as ISO 8601 to the second, e.g. "2026-12-02T17:05:09Z" (reports' created_at).
std::string utc_timestamp();

}  // namespace gpubench
