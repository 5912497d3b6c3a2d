//! [`Arg`]: a value bound to a statement, before the dialect encodes it. The variants are the
//! kinds of column the schema has; [`Dialect::bind`](super::Dialect) says how each is stored.

use std::borrow::Cow;

use time::OffsetDateTime;
use uuid::Uuid;

/// One bound value. `None` binds SQL `NULL` of the variant's type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Arg<'a> {
    Int8(Option<i64>),
    Int4(Option<i32>),
    Float(Option<f64>),
    Bool(Option<bool>),
    Text(Option<Cow<'a, str>>),
    Bytes(Option<Cow<'a, [u8]>>),
    /// PostgreSQL: `TIMESTAMPTZ`; SQLite: unix microseconds.
    Time(Option<OffsetDateTime>),
    /// PostgreSQL: `UUID`; SQLite: a 16-byte blob.
    Uuid(Option<Uuid>),
    /// PostgreSQL: `JSONB`; SQLite: JSON text.
    Json(Option<serde_json::Value>),
    /// A list of ids for `unnest($n::bigint[])` (PostgreSQL) or `json_each($n)` (SQLite).
    Ids(Vec<i64>),
    /// PostgreSQL: `TEXT[]`; SQLite: a JSON array of strings.
    Texts(Option<Vec<String>>),
}

impl<'a> Arg<'a> {
    pub(crate) fn ids(ids: impl IntoIterator<Item = i64>) -> Self {
        Self::Ids(ids.into_iter().collect())
    }

    pub(crate) fn texts(list: Option<&[String]>) -> Self {
        Self::Texts(list.map(<[String]>::to_vec))
    }

    pub(crate) fn json(value: Option<serde_json::Value>) -> Self {
        Self::Json(value)
    }
}

macro_rules! arg_from {
    ($($t:ty => $variant:ident),* $(,)?) => {$(
        impl From<$t> for Arg<'_> {
            fn from(value: $t) -> Self {
                Self::$variant(Some(value))
            }
        }
        impl From<Option<$t>> for Arg<'_> {
            fn from(value: Option<$t>) -> Self {
                Self::$variant(value)
            }
        }
    )*};
}

arg_from!(i64 => Int8, i32 => Int4, f64 => Float, bool => Bool, OffsetDateTime => Time, Uuid => Uuid);

impl<'a> From<&'a str> for Arg<'a> {
    fn from(value: &'a str) -> Self {
        Self::Text(Some(Cow::Borrowed(value)))
    }
}

impl<'a> From<Option<&'a str>> for Arg<'a> {
    fn from(value: Option<&'a str>) -> Self {
        Self::Text(value.map(Cow::Borrowed))
    }
}

impl<'a> From<&'a String> for Arg<'a> {
    fn from(value: &'a String) -> Self {
        Self::Text(Some(Cow::Borrowed(value.as_str())))
    }
}

impl From<String> for Arg<'_> {
    fn from(value: String) -> Self {
        Self::Text(Some(Cow::Owned(value)))
    }
}

impl From<Option<String>> for Arg<'_> {
    fn from(value: Option<String>) -> Self {
        Self::Text(value.map(Cow::Owned))
    }
}

impl<'a> From<&'a [u8]> for Arg<'a> {
    fn from(value: &'a [u8]) -> Self {
        Self::Bytes(Some(Cow::Borrowed(value)))
    }
}

impl From<Vec<u8>> for Arg<'_> {
    fn from(value: Vec<u8>) -> Self {
        Self::Bytes(Some(Cow::Owned(value)))
    }
}

impl From<Option<Vec<u8>>> for Arg<'_> {
    fn from(value: Option<Vec<u8>>) -> Self {
        Self::Bytes(value.map(Cow::Owned))
    }
}

impl<'a> From<Option<&'a [u8]>> for Arg<'a> {
    fn from(value: Option<&'a [u8]>) -> Self {
        Self::Bytes(value.map(Cow::Borrowed))
    }
}
