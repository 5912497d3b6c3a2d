//! A fixed-capacity, lock-free table of metric handles keyed by a small `Copy` label key: the
//! first request with a label set registers its handle with the recorder (one allocation, once),
//! every later one finds it by hashing the key and probing a few slots. No lock is shared by the
//! requests that read it, and a lookup allocates nothing.
//!
//! A full table (more label sets than slots, or a long probe) answers with the overflow handle,
//! so a misbehaving label never grows memory without bound.

use std::hash::{BuildHasher, Hash};
use std::sync::OnceLock;

/// How many slots one lookup probes before it gives up and uses the overflow handle.
const MAX_PROBE: usize = 32;

pub struct SeriesTable<K, H> {
    slots: Box<[OnceLock<(K, H)>]>,
    hasher: std::hash::RandomState,
    overflow: H,
}

impl<K: Copy + Eq + Hash, H: Clone> SeriesTable<K, H> {
    /// A table of `capacity` slots (at least one) whose lookups past capacity get `overflow`.
    pub fn new(capacity: usize, overflow: H) -> Self {
        let slots = (0..capacity.max(1)).map(|_| OnceLock::new()).collect::<Vec<_>>().into_boxed_slice();
        Self { slots, hasher: std::hash::RandomState::new(), overflow }
    }

    /// The handle of `key`, registered by `register` the first time the key is seen.
    pub fn get(&self, key: K, register: impl FnOnce(K) -> H) -> &H {
        let start = self.hasher.hash_one(key) as usize;
        let len = self.slots.len();
        let mut register = Some(register);
        for probe in 0..len.min(MAX_PROBE) {
            let slot = &self.slots[(start + probe) % len];
            if slot.get().is_none()
                && let Some(register) = register.take()
            {
                // A racing request may fill the slot first; the registry returns the same
                // series for the same key, so either handle counts into it.
                let _ = slot.set((key, register(key)));
            }
            match slot.get() {
                Some((stored, handle)) if *stored == key => return handle,
                _ => continue,
            }
        }
        &self.overflow
    }

    /// How many label sets hold a slot.
    pub fn len(&self) -> usize {
        self.slots.iter().filter(|slot| slot.get().is_some()).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Names interned to small indexes (the model label): index 0 is `none` (the request never got a
/// model), 1 is `other` (the table is full, or the label is switched off).
pub struct NameTable {
    slots: Box<[OnceLock<Box<str>>]>,
    hasher: std::hash::RandomState,
    enabled: bool,
}

pub const NAME_NONE: u16 = 0;
pub const NAME_OTHER: u16 = 1;
const RESERVED: usize = 2;

impl NameTable {
    pub fn new(capacity: u16, enabled: bool) -> Self {
        let slots = (0..capacity.max(1)).map(|_| OnceLock::new()).collect::<Vec<_>>().into_boxed_slice();
        Self { slots, hasher: std::hash::RandomState::new(), enabled }
    }

    /// The index of `name`, interning it the first time (one allocation, once per name).
    pub fn index(&self, name: &str) -> u16 {
        if !self.enabled || name.is_empty() {
            return NAME_OTHER;
        }
        let start = self.hasher.hash_one(name) as usize;
        let len = self.slots.len();
        for probe in 0..len.min(MAX_PROBE) {
            let at = (start + probe) % len;
            let slot = &self.slots[at];
            if slot.get().is_none() {
                let _ = slot.set(name.into());
            }
            if slot.get().is_some_and(|stored| &**stored == name) {
                return u16::try_from(at + RESERVED).unwrap_or(NAME_OTHER);
            }
        }
        NAME_OTHER
    }

    /// The label value of an index.
    pub fn name(&self, index: u16) -> &str {
        match index {
            NAME_NONE => "none",
            NAME_OTHER => "other",
            _ => self.slots.get(usize::from(index) - RESERVED).and_then(OnceLock::get).map_or("other", |name| name),
        }
    }
}
