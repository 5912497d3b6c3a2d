//! The xAI provider's settings from the configuration, and its setting → configuration key map.

use std::time::Duration;

use crate::config::Config;
use gateway_host::ConfigError;
use provider_xai::settings::parse_model_map;
use provider_xai::{InvalidSetting, XaiSetting, XaiSettings};

pub fn xai_setting_key(setting: XaiSetting) -> &'static str {
    match setting {
        XaiSetting::InferenceUrl => "providers.xai.inference_url",
        XaiSetting::IssuerUrl => "providers.xai.issuer_url",
        XaiSetting::ApiUrl => "providers.xai.api_url",
        XaiSetting::NpmRegistryUrl => "providers.xai.npm_registry_url",
        XaiSetting::ClientVersion => "providers.xai.client_version",
        XaiSetting::ExtraCaFile => "providers.xai.extra_ca_file",
        XaiSetting::ModelMap => "providers.xai.model_map",
    }
}

pub fn invalid_xai_setting(error: InvalidSetting) -> ConfigError {
    ConfigError::invalid(xai_setting_key(error.setting), &error.reason)
}

pub fn xai_settings(config: &Config) -> Result<XaiSettings, ConfigError> {
    let xai = &config.providers.xai;
    Ok(XaiSettings {
        inference_url: xai.inference_url.clone(),
        issuer_url: xai.issuer_url.clone(),
        api_url: xai.api_url.clone(),
        npm_registry_url: xai.npm_registry_url.clone(),
        client_id: xai.client_id.clone(),
        client_version: xai
            .client_version
            .clone()
            .unwrap_or_else(|| provider_xai::settings::PINNED_GROK_CLI_VERSION.to_owned()),
        stream_idle_timeout: Duration::from_secs(xai.stream_idle_timeout_seconds),
        refresh_timeout: Duration::from_secs(30),
        allow_http_loopback: config.providers.allow_http_loopback,
        extra_ca_file: xai.extra_ca_file.as_ref().map(std::path::PathBuf::from),
        proxy_addresses: super::outbound::proxy_addresses(config),
        model_map: parse_model_map(&xai.model_map).map_err(invalid_xai_setting)?,
    })
}

/// The provider's own checks, at configuration load.
pub fn check_xai_settings(config: &Config) -> Result<(), ConfigError> {
    xai_settings(config)?.check().map(drop).map_err(invalid_xai_setting)
}
