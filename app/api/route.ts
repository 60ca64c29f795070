// /api itself is no resource: UnknownResource, whatever the method.
export { GET, POST, PUT, DELETE, PATCH } from "./[...path]/route";
