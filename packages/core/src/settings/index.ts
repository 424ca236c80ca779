// The one spec of every setting: its bounds, default and doc line; validation reads it.

export { SETTINGS_SPEC, type DerivedDefault, type SettingGroup, type SettingName, type SettingScope, type SettingSpec, type SettingValue, type SettingsOf } from "./spec.js";
export { acceptsSetting, checkSetting, checkSettings, settingExpectation, settingNames, settingOrDefault } from "./check.js";
