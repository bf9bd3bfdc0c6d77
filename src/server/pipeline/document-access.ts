import { type AppError, appError } from "../../errors/index.ts";
import { addressAllowed, type Cidr, parseCidr } from "../../net/cidr.ts";
import type { Deployment } from "../../store/contract/index.ts";

/** An empty allow-list allows every address. */
export function ipAllowed(allowList: string[], ip: string): boolean {
  if (allowList.length === 0) return true;
  return addressAllowed(
    allowList.map(parseCidr).filter((c): c is Cidr => c !== null),
    ip,
  );
}

/**
 * What the deployment key may do with documents. The key is public wherever the widget is embedded, so:
 * pushing (the interface's endpoint) is on unless the owner switched it off or limited it to some addresses;
 * a pushed document's status (the push's `status_url`) follows the push permission; listing and removing
 * documents need the owner's explicit `key_manages_documents`.
 */
export function documentRefusal(d: Deployment, input: { method: string; path: string; clientIp: string }): AppError | null {
  const canPush = (): AppError | null => {
    if (!d.pushEnabled) return appError("push_disabled");
    if (!ipAllowed(d.pushIpAllow, input.clientIp))
      return appError("ip_restricted", { message: "Pushing documents is not allowed from this address." });
    return null;
  };
  if (input.method === "POST") return canPush();
  if (d.keyManagesDocuments) return null;
  const oneDocument = /^\/api\/v1\/documents\/[^/]+\/?$/.test(input.path);
  if (input.method === "GET" && oneDocument && canPush() === null) return null;
  return appError("documents_access_disabled");
}
