module "aks" {
  source              = "Azure/aks/azurerm"
  resource_group_name = "rg"
  agents_pool_name    = "system"
  agents_size         = "Standard_D4s_v5"
  agents_labels       = { role = "system" }

  only_critical_addons_enabled = true

  node_pools = {
    batch = {
      name                  = "batch"
      vm_size               = "Standard_D8s_v5"
      priority              = "Spot"
      node_taints           = ["batch=true:NoSchedule"]
      create_before_destroy = false
    }
  }
}
