//! The one integration-test binary of gateway-core; modules mirror `src/`.

mod domain;
