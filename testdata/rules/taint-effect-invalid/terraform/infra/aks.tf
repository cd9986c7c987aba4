resource "azurerm_kubernetes_cluster_node_pool" "apps" {
  name                  = "apps"
  kubernetes_cluster_id = "id"
  vm_size               = "Standard_D4s_v5"
  node_taints = [
    "team=payments:NoSchedule",
    "team=payments:NoScheduling", # want "taint-effect-invalid"
  ]
}
