"""plugin.py — a variantlib provider plugin for namespace nvidia, feature cuda_version_lower_bound.

It has the plugin API of NVIDIA's provider (nvidia_variant_provider.plugin:NvidiaVariantPlugin),
which uv's wheel-variants support answers with its own built-in provider, so that one switch
drives variantlib and uv alike: NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=MAJOR.MINOR (the
variable uv's provider reads) says the system has a CUDA driver of that version; unset or empty,
there is none and no property is supported.  Nothing of the machine is probed.

get_all_configs(): every cuda_version_lower_bound from 11.0 to 13.9.
get_supported_configs(): the lower bounds the driver satisfies, the highest first.
"""
import os
from dataclasses import dataclass

VARIABLE = "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION"
FEATURE = "cuda_version_lower_bound"
VERSIONS = [(major, minor) for major in (11, 12, 13) for minor in range(10)]


@dataclass(frozen=True)
class VariantFeatureConfig:
    name: str
    values: list
    multi_value: bool = False


def _driver():
    """The driver version (major, minor) the variable gives, None without one."""
    value = os.environ.get(VARIABLE, "").strip()
    if not value:
        return None
    parts = value.split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts[:2]):
        raise ValueError("%s=%r is not MAJOR.MINOR" % (VARIABLE, value))
    return int(parts[0]), int(parts[1])


def _values(versions):
    return ["%d.%d" % v for v in sorted(versions, reverse=True)]


class NvidiaVariantPlugin:
    namespace = "nvidia"

    @classmethod
    def get_all_configs(cls):
        return [VariantFeatureConfig(FEATURE, _values(VERSIONS))]

    @classmethod
    def get_supported_configs(cls):
        driver = _driver()
        if driver is None:
            return []
        return [VariantFeatureConfig(FEATURE, _values(v for v in VERSIONS if v <= driver))]
