//! Integration tests of provider-xai.
