//! Which addresses an admin-set URL may not reach: one pure function over `IpAddr`, so the
//! save-time check and any connect-time check (webhooks, the backup client) decide alike.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not an ordinary public unicast address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddressClass {
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`, and the deprecated site-local `fec0::/10`.
    Private,
    /// `169.254.0.0/16`, `fe80::/10`.
    LinkLocal,
    /// `100.64.0.0/10` (carrier-grade NAT, RFC 6598).
    SharedAddressSpace,
    /// `fc00::/7`.
    UniqueLocal,
    /// Cloud instance metadata: `169.254.169.254`, `169.254.170.2` (ECS), `100.100.100.200`
    /// (Alibaba), `fd00:ec2::254` (EC2 over IPv6).
    CloudMetadata,
    /// `0.0.0.0/8`, `::` (connecting to it reaches the local host).
    Unspecified,
    /// Multicast, broadcast, `240.0.0.0/4`.
    NotUnicast,
}

impl AddressClass {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Loopback => "loopback",
            Self::Private => "private",
            Self::LinkLocal => "link-local",
            Self::SharedAddressSpace => "shared (carrier-grade NAT)",
            Self::UniqueLocal => "unique-local",
            Self::CloudMetadata => "cloud metadata",
            Self::Unspecified => "unspecified",
            Self::NotUnicast => "not unicast",
        }
    }

    /// What `admin.allow_private_urls` opens: the local and private networks an operator may
    /// really keep a bucket or webhook receiver on — never metadata services, `0.0.0.0` or
    /// non-unicast addresses.
    pub fn allowed_with_private_urls(self) -> bool {
        matches!(self, Self::Loopback | Self::Private | Self::LinkLocal | Self::SharedAddressSpace | Self::UniqueLocal)
    }
}

/// The class of `ip`, or `None` for an ordinary public unicast address. IPv6 forms that embed
/// an IPv4 address (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`,
/// 6to4 `2002::/16`, Teredo `2001::/32`) are judged by that IPv4 address.
pub fn classify(ip: IpAddr) -> Option<AddressClass> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

/// The policy: the class of a refused address, `None` when `ip` may be used.
pub fn address_refused(ip: IpAddr, policy: super::UrlPolicy) -> Option<AddressClass> {
    classify(ip).filter(|class| !(policy.allow_private && class.allowed_with_private_urls()))
}

const METADATA_V4: [Ipv4Addr; 3] =
    [Ipv4Addr::new(169, 254, 169, 254), Ipv4Addr::new(169, 254, 170, 2), Ipv4Addr::new(100, 100, 100, 200)];
const METADATA_V6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254);

fn in_v4(ip: Ipv4Addr, base: [u8; 4], prefix: u32) -> bool {
    let mask = u32::MAX.checked_shl(32 - prefix).unwrap_or(0);
    u32::from(ip) & mask == u32::from(Ipv4Addr::from(base)) & mask
}

fn classify_v4(ip: Ipv4Addr) -> Option<AddressClass> {
    if METADATA_V4.contains(&ip) {
        return Some(AddressClass::CloudMetadata);
    }
    let class = if in_v4(ip, [0, 0, 0, 0], 8) {
        AddressClass::Unspecified
    } else if in_v4(ip, [127, 0, 0, 0], 8) {
        AddressClass::Loopback
    } else if in_v4(ip, [10, 0, 0, 0], 8) || in_v4(ip, [172, 16, 0, 0], 12) || in_v4(ip, [192, 168, 0, 0], 16) {
        AddressClass::Private
    } else if in_v4(ip, [169, 254, 0, 0], 16) {
        AddressClass::LinkLocal
    } else if in_v4(ip, [100, 64, 0, 0], 10) {
        AddressClass::SharedAddressSpace
    } else if in_v4(ip, [224, 0, 0, 0], 4) || in_v4(ip, [240, 0, 0, 0], 4) {
        AddressClass::NotUnicast
    } else {
        return None;
    };
    Some(class)
}

fn classify_v6(ip: Ipv6Addr) -> Option<AddressClass> {
    if ip == METADATA_V6 {
        return Some(AddressClass::CloudMetadata);
    }
    if ip.is_unspecified() {
        return Some(AddressClass::Unspecified);
    }
    if ip.is_loopback() {
        return Some(AddressClass::Loopback);
    }
    if let Some(v4) = embedded_v4(ip) {
        return classify_v4(v4);
    }
    let first = ip.segments()[0];
    let class = if first & 0xfe00 == 0xfc00 {
        AddressClass::UniqueLocal
    } else if first & 0xffc0 == 0xfe80 {
        AddressClass::LinkLocal
    } else if first & 0xffc0 == 0xfec0 {
        AddressClass::Private
    } else if first & 0xff00 == 0xff00 {
        AddressClass::NotUnicast
    } else {
        return None;
    };
    Some(class)
}

/// The IPv4 address an IPv6 address carries, for the forms that route to it.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(mapped) = ip.to_ipv4_mapped() {
        return Some(mapped);
    }
    let o = ip.octets();
    let low = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
    let s = ip.segments();
    if s[..6] == [0; 6] {
        // IPv4-compatible `::a.b.c.d` (deprecated, still routed by some stacks).
        Some(low)
    } else if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        // NAT64 well-known prefix `64:ff9b::/96`.
        Some(low)
    } else if s[0] == 0x2002 {
        // 6to4 `2002:AABB:CCDD::/48`.
        Some(Ipv4Addr::new(o[2], o[3], o[4], o[5]))
    } else if s[0] == 0x2001 && s[1] == 0 {
        // Teredo `2001:0::/32`: the client address is the last 32 bits, inverted.
        Some(Ipv4Addr::from(!u32::from(low)))
    } else {
        None
    }
}
