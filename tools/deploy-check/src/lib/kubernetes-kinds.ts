// Only types: the unknown-field check reads this file with the TypeScript compiler and walks
// each manifest against the kubernetes-models interface named here for its apiVersion/kind.
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { INamespace } from 'kubernetes-models/v1/Namespace';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';

/** The kinds the manifests may use, by `apiVersion/kind`. */
export interface KubernetesKinds {
  'v1/Namespace': INamespace;
  'v1/ConfigMap': IConfigMap;
  'v1/Secret': ISecret;
  'v1/Service': IService;
  'apps/v1/Deployment': IDeployment;
  'batch/v1/Job': IJob;
  'autoscaling/v2/HorizontalPodAutoscaler': IHorizontalPodAutoscaler;
  'policy/v1/PodDisruptionBudget': IPodDisruptionBudget;
  'networking.k8s.io/v1/NetworkPolicy': INetworkPolicy;
  'networking.k8s.io/v1/Ingress': IIngress;
}
