module "gke" {
  source                   = "terraform-google-modules/kubernetes-engine/google"
  name                     = "prod"
  remove_default_node_pool = true
  service_account          = google_service_account.nodes.email

  node_pools = [
    { name = "general", machine_type = "e2-standard-4" },
    { name = "gpu", machine_type = "n1-standard-8", accelerator_type = "nvidia-tesla-t4", accelerator_count = 1, spot = true },
  ]

  node_pools_labels = {
    all     = { env = "prod" }
    general = { tier = "web" }
  }

  node_pools_taints = {
    all = []
    general = [
      { key = "tier", value = "web", effect = "PREFER_NO_SCHEDULE" },
    ]
  }
}
