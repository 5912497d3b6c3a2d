//! [`closed_set!`](crate::closed_set): the closed sets stored as text (and checked by a SQL `CHECK`): one list of
//! variants gives `as_str`, `FromStr`, `Display` and serde in the same spelling.

/// The error of parsing a closed set from text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {set} `{value}`")]
pub struct UnknownVariant {
    pub set: &'static str,
    pub value: String,
}

/// Defines a closed set stored as text. Used by `gateway-core` and `gateway-admin`.
#[macro_export]
macro_rules! closed_set {
    ($(#[$doc:meta])* $name:ident as $set:literal { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        pub enum $name {
            $($(#[$vdoc])* #[serde(rename = $text)] $variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The stable spelling used in the database, the APIs and the docs.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::domain::closed_set::UnknownVariant;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($text => Ok($name::$variant),)+
                    other => Err($crate::domain::closed_set::UnknownVariant { set: $set, value: other.to_owned() }),
                }
            }
        }
    };
}
