variable "gpu_type" {
  default = "nvidia-l4"
}

resource "google_container_cluster" "prod" {
  name               = "prod"
  location           = "europe-west4"
  initial_node_count = 1

  # The default pool "default-pool" stays: e2-medium, no taints.
  node_config {
    labels = {
      tier = "default"
    }
  }
}

resource "google_container_node_pool" "gpu" {
  name    = "gpu"
  cluster = google_container_cluster.prod.id

  node_config {
    machine_type = "g2-standard-8"
    spot         = true

    guest_accelerator {
      type  = var.gpu_type
      count = 1
    }
  }
}

resource "google_container_node_pool" "arm" {
  name    = "arm"
  cluster = google_container_cluster.prod.id

  node_config {
    machine_type = "t2a-standard-4"
    preemptible  = true

    taint {
      key    = "dedicated"
      value  = "arm"
      effect = "PREFER_NO_SCHEDULE"
    }
  }
}

resource "google_container_node_pool" "windows" {
  name    = "win"
  cluster = google_container_cluster.prod.id

  node_config {
    image_type = "WINDOWS_LTSC_CONTAINERD"
  }
}
