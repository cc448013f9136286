// The sample records in Thrift form. The build generates their Java classes
// (dev.stowage.samples.thrift) from this file into target/generated-sources/thrift; see README.md.
namespace java dev.stowage.samples.thrift

// dev.stowage.samples.BoardRecord. Dates are UTC epoch seconds; unset text fields are null.
struct TBoardRecord {
  1: optional string id,
  2: required i64 score,
  3: required i64 memberId,
  4: optional string title,
  5: optional string body,
  6: optional string address,
  7: optional string country,
  8: optional string job,
  9: optional string credit,
  10: optional string ssn,
  11: optional string company,
  12: optional string phoneNumber,
  13: optional i64 modifiedAt,
  14: optional i64 createdAt,
  15: required i64 createdTs
}

enum TPlayer {
  JAVA = 0,
  FLASH = 1
}

enum TSize {
  SMALL = 0,
  LARGE = 1
}

struct TMedia {
  1: optional string uri,
  2: optional string title,
  3: required i32 width,
  4: required i32 height,
  5: optional string format,
  6: required i64 duration,
  7: required i64 size,
  8: optional i32 bitrate,
  9: optional list<string> persons,
  10: optional TPlayer player,
  11: optional string copyright
}

struct TImage {
  1: optional string uri,
  2: optional string title,
  3: required i32 width,
  4: required i32 height,
  5: optional TSize size
}

// The jvm-serializers media-content object.
struct TMediaContent {
  1: optional TMedia media,
  2: optional list<TImage> images
}
