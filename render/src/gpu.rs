//! The device: a wgpu instance, adapter, device and queue, for a window or
//! headless. Without a GPU it runs on Mesa's lavapipe (Vulkan on the CPU,
//! package `mesa-vulkan-drivers`); offscreen frames read back to RGBA8.

/// Why there is no device.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No adapter at all.
    #[error(
        "no Vulkan adapter found ({0}); without a GPU install Mesa's lavapipe: apt-get install mesa-vulkan-drivers"
    )]
    NoAdapter(String),
    /// The adapter refused the device.
    #[error("the adapter refused a device: {0}")]
    Device(#[from] wgpu::RequestDeviceError),
    /// The window's surface could not be made.
    #[error("cannot draw to the window: {0}")]
    Surface(#[from] wgpu::CreateSurfaceError),
}

/// A device and its queue.
#[derive(Debug, Clone)]
pub struct Gpu {
    /// The instance.
    pub instance: wgpu::Instance,
    /// The adapter chosen.
    pub adapter: wgpu::Adapter,
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// Whether draws can come from a buffer of arguments with any first
    /// instance (`INDIRECT_FIRST_INSTANCE` and indirect execution): the
    /// objects are then one multi-draw a planet.
    pub indirect: bool,
}

impl Gpu {
    /// A device with no window.
    pub fn headless() -> Result<Self, GpuError> {
        let instance = instance();
        Self::with_instance(instance, None)
    }

    /// A device that can draw to `surface` (made from `instance`).
    pub fn for_surface(instance: wgpu::Instance, surface: &wgpu::Surface<'_>) -> Result<Self, GpuError> {
        Self::with_instance(instance, Some(surface))
    }

    fn with_instance(instance: wgpu::Instance, surface: Option<&wgpu::Surface<'_>>) -> Result<Self, GpuError> {
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: surface,
            apply_limit_buckets: false,
        }))
        .map_err(|e| GpuError::NoAdapter(e.to_string()))?;
        let indirect = adapter.features().contains(wgpu::Features::INDIRECT_FIRST_INSTANCE)
            && adapter.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::INDIRECT_EXECUTION);
        let required_features =
            if indirect { wgpu::Features::INDIRECT_FIRST_INSTANCE } else { wgpu::Features::empty() };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("planet"),
            required_features,
            required_limits: wgpu::Limits::default(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))?;
        Ok(Self { instance, adapter, device, queue, indirect })
    }

    /// The adapter's name and backend, for reports.
    #[must_use]
    pub fn describe(&self) -> String {
        let info = self.adapter.get_info();
        format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type)
    }
}

/// The Vulkan instance every device here comes from.
#[must_use]
pub fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    wgpu::Instance::new(desc)
}

/// An instance that can make surfaces for windows of `display`.
#[must_use]
pub fn instance_for_display(
    display: impl wgpu::rwh::HasDisplayHandle + std::fmt::Debug + Send + Sync + 'static,
) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_with_display_handle(Box::new(display));
    desc.backends = wgpu::Backends::VULKAN;
    wgpu::Instance::new(desc)
}
